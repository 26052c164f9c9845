// Node: the content store in an S3 bucket (AWS, or any S3-compatible server through `endpoint`):
// `<prefix>objects/<64 hex>`, written once and never changed; a re-put refreshes LastModified at most once a day.
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { HeadObjectCommandOutput } from '@aws-sdk/client-s3';
import type { ContentKey } from '../protocol/content-key.js';
import type { ContentStore, DeleteOptions, StoredObject } from './content-store.js';
import { CorruptContentError, MissingContentError, StoreOutageError, StoreUnavailableError } from './content-store.js';
import { contentBytes, keyHex, sha256Hex } from './object-key.js';
import { s3KeyPrefix, s3StoreDescription } from './s3-location.js';

/** Where and how to reach the bucket. */
export interface S3StoreOptions {
  bucket: string;
  /** Key prefix inside the bucket (`team/agent/`); a missing trailing slash is added. */
  prefix?: string;
  /** An S3-compatible server (MinIO, Ceph, s3proxy, …) instead of AWS. */
  endpoint?: string;
  /** Default `us-east-1`. */
  region?: string;
  /** `http://host/bucket/key` instead of `http://bucket.host/key`: what most S3-compatible servers expect. */
  forcePathStyle?: boolean;
  /** Default: the SDK's credential chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Keys per ListObjectsV2 page (default and S3's maximum 1000). */
  listPageSize?: number;
}

/** How stale LastModified may get before a re-put refreshes it: a day keeps re-puts to one request, far inside gc ages. */
export const S3_REFRESH_AFTER_MS = 24 * 3600_000;

/** A content store in an S3 bucket. Requests are retried by the SDK's standard retry strategy (3 attempts). */
export function createS3Store(options: S3StoreOptions): ContentStore {
  const bucket = options.bucket;
  const prefix = s3KeyPrefix(options.prefix);
  const description = s3StoreDescription(options);
  const objects = `${prefix}objects/`;
  const objectKey = (hex: string): string => `${objects}${hex}`;
  // The SDK is pinned to an exact release that supports Node 20; its notice is about later releases only.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client({
    region: options.region ?? 'us-east-1',
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.forcePathStyle !== undefined ? { forcePathStyle: options.forcePathStyle } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // S3-compatible servers differ in support for the SDK's default CRC checksums; every read is verified against
    // the content's own SHA-256 anyway.
    ...(options.endpoint
      ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
      : {}),
  });

  const where = options.endpoint ?? `the S3 endpoint of ${options.region ?? 'us-east-1'}`;
  const explain = (error: unknown, operation: string): Error =>
    explainError(error, operation, { bucket, description, where });

  // A 404 from HeadObject does not say whether the key or the whole bucket is missing: ask once which it is.
  let bucketChecked: Promise<void> | undefined;
  const checkBucket = (): Promise<void> => {
    bucketChecked ??= client.send(new HeadBucketCommand({ Bucket: bucket })).then(
      () => undefined,
      (error: unknown) => {
        // 403 here only means the credentials may not list the bucket; the object requests say more.
        if (statusOf(error) === 403) return;
        bucketChecked = undefined;
        throw explain(error, 'HeadBucket');
      },
    );
    return bucketChecked;
  };

  const head = async (key: string): Promise<HeadObjectCommandOutput | undefined> => {
    try {
      return await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    } catch (error) {
      if (statusOf(error) !== 404) throw explain(error, 'HeadObject');
      await checkBucket();
      return undefined;
    }
  };

  const write = async (key: string, bytes: Buffer): Promise<void> => {
    try {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: bytes,
          ContentLength: bytes.byteLength,
          ContentType: 'application/octet-stream',
        }),
      );
    } catch (error) {
      throw explain(error, 'PutObject');
    }
  };

  const remove = async (key: string): Promise<void> => {
    try {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    } catch (error) {
      throw explain(error, 'DeleteObject');
    }
  };

  return {
    description,

    async put(content) {
      const bytes = contentBytes(content);
      const hex = sha256Hex(bytes);
      const key = objectKey(hex);
      const existing = await head(key);
      if (!existing) {
        await write(key, bytes);
        return `sha256:${hex}`;
      }
      const age = Date.now() - (existing.LastModified?.getTime() ?? 0);
      if (age < S3_REFRESH_AFTER_MS) return `sha256:${hex}`;
      try {
        // A copy onto itself is the only way S3 offers to move LastModified without sending the bytes again.
        await client.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: key,
            CopySource: `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
            MetadataDirective: 'REPLACE',
            ContentType: 'application/octet-stream',
          }),
        );
      } catch (error) {
        // Collected between the head and the copy: write it again.
        if (nameOf(error) !== 'NoSuchKey' && statusOf(error) !== 404) throw explain(error, 'CopyObject');
        await write(key, bytes);
      }
      return `sha256:${hex}`;
    },

    async get(key) {
      const name = objectKey(keyHex(key));
      let bytes: Uint8Array;
      try {
        const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: name }));
        if (!response.Body) throw new Error(`GetObject of ${name} returned no body`);
        bytes = await response.Body.transformToByteArray();
      } catch (error) {
        if (nameOf(error) === 'NoSuchKey') throw new MissingContentError(key, description);
        throw explain(error, 'GetObject');
      }
      // Same check as the directory store: cheap next to the transfer, and the only guard against wrong bytes.
      const actual = sha256Hex(bytes);
      if (`sha256:${actual}` !== key) {
        await remove(name);
        throw new CorruptContentError(key, description, `sha256:${actual}`);
      }
      return bytes;
    },

    async has(key) {
      return (await head(objectKey(keyHex(key)))) !== undefined;
    },

    async *list(): AsyncIterable<StoredObject> {
      let continuationToken: string | undefined;
      do {
        let page;
        try {
          page = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: objects,
              ...(options.listPageSize ? { MaxKeys: options.listPageSize } : {}),
              ...(continuationToken ? { ContinuationToken: continuationToken } : {}),
            }),
          );
        } catch (error) {
          throw explain(error, 'ListObjectsV2');
        }
        for (const item of page.Contents ?? []) {
          const hex = item.Key?.slice(objects.length) ?? '';
          if (!/^[0-9a-f]{64}$/.test(hex)) continue;
          yield { key: `sha256:${hex}`, bytes: item.Size ?? 0, writtenAt: item.LastModified ?? new Date(0) };
        }
        continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (continuationToken);
    },

    async delete(key: ContentKey, deleteOptions: DeleteOptions = {}) {
      const name = objectKey(keyHex(key));
      const existing = await head(name);
      if (!existing) return false;
      // S3 has no portable conditional delete: a re-put landing between this head and the delete is the one window
      // left, milliseconds wide, and only for content no open run refers to.
      const cutoff = deleteOptions.ifWrittenBefore;
      if (cutoff && (existing.LastModified?.getTime() ?? 0) >= cutoff.getTime()) return false;
      await remove(name);
      return true;
    },
  };
}

/** `team/agent` → `team/agent/`; empty stays empty (the objects live at the bucket's top). */
function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function nameOf(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

const CREDENTIAL_ERRORS = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'InvalidToken',
  'ExpiredToken',
]);

// What a request that never got an answer fails with: the server is down, unreachable, or dropped the connection.
const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
]);

/** An SDK error as a message an operator can act on: which store, which request, what to check. */
function explainError(
  error: unknown,
  operation: string,
  store: { bucket: string; description: string; where: string },
): Error {
  if (error instanceof StoreUnavailableError || error instanceof StoreOutageError) return error;
  const { bucket, description } = store;
  const name = nameOf(error) ?? 'Error';
  const status = statusOf(error);
  // Passing (the server restarts, the network comes back): retryable, so the run waits.
  if (status === undefined && (NETWORK_ERRORS.has(codeOf(error) ?? '') || name === 'TimeoutError'))
    return new StoreOutageError(
      `content store unreachable at ${store.where}: ${operation} on ${description} got no answer ` +
        `(${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  // Responses to HEAD carry no body, so the SDK can only name them by status ("NotFound", "Unknown").
  if (name === 'NoSuchBucket' || (operation === 'HeadBucket' && status === 404))
    return new StoreUnavailableError(
      `The S3 bucket "${bucket}" does not exist (${description}): create it, or point DURABLE_AGENT_STORE at another bucket.`,
      { cause: error },
    );
  if (CREDENTIAL_ERRORS.has(name) || status === 403)
    return new StoreUnavailableError(
      `${description} refused ${operation} (${name === 'Unknown' ? 'HTTP 403' : name}): check AWS_ACCESS_KEY_ID and ` +
        `AWS_SECRET_ACCESS_KEY (or the credential chain) and that they may read and write the bucket.`,
      { cause: error },
    );
  const detail =
    error instanceof S3ServiceException
      ? `${name}${status ? ` HTTP ${status}` : ''}: ${error.message}`
      : error instanceof Error
        ? error.message
        : String(error);
  // Anything else (a server error or timeout the SDK's retries did not get past) may pass: a plain error.
  return new Error(`${operation} on ${description} failed: ${detail}`, { cause: error });
}
