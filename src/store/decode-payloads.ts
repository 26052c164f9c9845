// Node: what the codec endpoint does to one payload. A JSON payload is shown with its content keys expanded; a Temporal
// External Storage reference written by our driver is replaced by the payload it stands for (then expanded likewise);
// anything else passes through untouched. Nothing here fails a request: a payload that cannot be read shows why.
import type { Payload } from '@temporalio/common';
import { decodeReferencePayload, isReferencePayload } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { isContentKey } from '../protocol/content-key.js';
import type { ContentStore } from './content-store.js';
import { createContentExpander } from './expand-content.js';
import type { ExpandLimits } from './expand-content.js';
import { STORAGE_DRIVER_NAME, payloadFromBytes } from './temporal-driver.js';

/** A payload as the codec protocol carries it: protobuf JSON, so metadata values and data are base64. */
export interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
  [field: string]: unknown;
}

/** Options of `decodePayloads`. */
export interface DecodeOptions {
  limits?: Partial<ExpandLimits>;
  /** Told about a payload that could not be decoded at all; it is answered untouched. */
  onError?: (error: unknown) => void;
}

/** Decodes the payloads of one request; reads are shared between them. */
export async function decodePayloads(
  payloads: JsonPayload[],
  store: ContentStore,
  options: DecodeOptions = {},
): Promise<JsonPayload[]> {
  const expander = createContentExpander(store, options.limits);

  const expandJson = async (payload: JsonPayload): Promise<JsonPayload> => {
    if (metadataText(payload, 'encoding') !== 'json/plain' || typeof payload.data !== 'string') return payload;
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) as unknown;
    } catch {
      return payload;
    }
    return { ...payload, data: Buffer.from(JSON.stringify(await expander.expand(value)), 'utf8').toString('base64') };
  };

  /** The payload a reference of our driver stands for; undefined for any other payload. */
  const resolveReference = async (
    payload: JsonPayload,
  ): Promise<{ payload: JsonPayload; found: boolean } | undefined> => {
    const binary = toPayload(payload);
    if (!isReferencePayload(binary)) return undefined;
    const reference = decodeReferencePayload(binary);
    const key = reference.claimData.key;
    // Another driver's reference (a store this endpoint cannot reach) is shown as Temporal wrote it.
    if (reference.driverName !== STORAGE_DRIVER_NAME || !isContentKey(key)) return { payload, found: false };
    try {
      return { payload: fromPayload(payloadFromBytes(await store.get(key))), found: true };
    } catch (error) {
      const note = error instanceof Error ? error.message : String(error);
      const shown = { externalStorage: { driver: reference.driverName, key, bytes: reference.sizeBytes }, note };
      return { payload: jsonPayload(shown), found: false };
    }
  };

  return await Promise.all(
    payloads.map(async (payload) => {
      try {
        const referenced = await resolveReference(payload);
        if (referenced && !referenced.found) return referenced.payload;
        return await expandJson(referenced?.payload ?? payload);
      } catch (error) {
        // A malformed reference or metadata: the Web UI still shows the payload as it is in history.
        options.onError?.(error);
        return payload;
      }
    }),
  );
}

function metadataText(payload: JsonPayload, name: string): string | undefined {
  const value = payload.metadata?.[name];
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : undefined;
}

function toPayload(payload: JsonPayload): Payload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([name, value]) => [name, Buffer.from(String(value), 'base64')]),
  );
  return {
    metadata,
    ...(typeof payload.data === 'string' ? { data: Buffer.from(payload.data, 'base64') } : {}),
    // The reference's size travels here; proto JSON writes the int64 as a string, which the SDK reads as well.
    ...(Array.isArray(payload.externalPayloads)
      ? { externalPayloads: payload.externalPayloads as Payload['externalPayloads'] }
      : {}),
  };
}

function fromPayload(payload: Payload): JsonPayload {
  const base64 = (bytes: Uint8Array) =>
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([name, value]) => [name, base64(value)])),
    data: base64(payload.data ?? new Uint8Array()),
  };
}

function jsonPayload(value: unknown): JsonPayload {
  return {
    metadata: { encoding: Buffer.from('json/plain').toString('base64') },
    data: Buffer.from(JSON.stringify(value), 'utf8').toString('base64'),
  };
}
