// The official Temporal CLI release archives: where they are, how to fetch one without hanging on a dead network,
// how to check it against the release's published SHA-256 list, and how to take the binary out of it.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { execa } from 'execa';
import type { DirectoryEnvironment } from './state-dir.js';

/** Where Temporal publishes CLI releases: `<base>/v<version>/<asset>` (GitHub release assets). */
export const TEMPORAL_CLI_DOWNLOAD_BASE_URL = 'https://github.com/temporalio/cli/releases/download';

/** Environment variable that replaces `TEMPORAL_CLI_DOWNLOAD_BASE_URL` (a mirror with the same layout). */
export const DOWNLOAD_BASE_URL_VARIABLE = 'TEMPORAL_CLI_DOWNLOAD_BASE_URL';

/** The release asset listing the SHA-256 of every archive (goreleaser's `checksum.name_template`). */
export const TEMPORAL_CLI_CHECKSUMS_FILE = 'checksums.txt';

/** Limits of one download; a dead or hung network fails within `connectTimeoutMs` or `stallTimeoutMs`. */
export interface DownloadLimits {
  /** From the request to the response headers (connecting, TLS, redirects). */
  connectTimeoutMs: number;
  /** Longest pause between two chunks of the body. */
  stallTimeoutMs: number;
  /** The whole download. */
  totalTimeoutMs: number;
  /** Bodies larger than this are refused (a mirror serving the wrong thing must not fill the disk). */
  maxBytes: number;
}

/** Limits for the CLI archive (about 30 MB) and its checksums file. */
export const RELEASE_DOWNLOAD_LIMITS: DownloadLimits = {
  connectTimeoutMs: 10_000,
  stallTimeoutMs: 15_000,
  totalTimeoutMs: 5 * 60_000,
  maxBytes: 200 * 1024 * 1024,
};

/** A download, checksum or extraction problem, phrased for a one-line report. */
export class ReleaseDownloadError extends Error {
  override readonly name = 'ReleaseDownloadError';
}

/** The archive name Temporal publishes for a platform, e.g. `temporal_cli_1.5.1_linux_amd64.tar.gz`. */
export function temporalArchiveName(
  version: string,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string {
  const os = platform === 'win32' ? 'windows' : platform;
  const goArch = arch === 'x64' ? 'amd64' : arch;
  return `temporal_cli_${version}_${os}_${goArch}.tar.gz`;
}

/** The URL of one asset of a release, under `TEMPORAL_CLI_DOWNLOAD_BASE_URL` or the official location. */
export function temporalReleaseAssetUrl(
  version: string,
  asset: string,
  env: DirectoryEnvironment = process.env,
): string {
  const base = (env[DOWNLOAD_BASE_URL_VARIABLE] || TEMPORAL_CLI_DOWNLOAD_BASE_URL).replace(/\/+$/, '');
  return `${base}/v${version}/${asset}`;
}

/** The SHA-256 that a `sha256sum`-style listing (`<hex>  <name>` per line) gives for `fileName`. */
export function expectedSha256(checksums: string, fileName: string): string | undefined {
  for (const line of checksums.split('\n')) {
    const match = /^([0-9a-fA-F]{64})\s+\*?(\S+)\s*$/.exec(line.trim());
    if (match && match[2] === fileName) return match[1]!.toLowerCase();
  }
  return undefined;
}

/** Fetches `url` into `file`, returning the body's SHA-256 (hex) and size; throws `ReleaseDownloadError`. */
export async function downloadToFile(
  url: string,
  file: string,
  limits: DownloadLimits = RELEASE_DOWNLOAD_LIMITS,
): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await withDownload(url, limits, async (body, touch) => {
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        touch();
        bytes += chunk.length;
        if (bytes > limits.maxBytes) {
          callback(new ReleaseDownloadError(`more than ${limits.maxBytes} bytes from ${url}`));
          return;
        }
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    await pipeline(body, meter, createWriteStream(file));
  });
  return { sha256: hash.digest('hex'), bytes };
}

/** Fetches a small text file (the checksums list) under the same limits. */
export async function downloadText(url: string, limits: DownloadLimits = RELEASE_DOWNLOAD_LIMITS): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  await withDownload(url, limits, async (body, touch) => {
    for await (const chunk of body) {
      touch();
      bytes += (chunk as Buffer).length;
      if (bytes > limits.maxBytes) throw new ReleaseDownloadError(`more than ${limits.maxBytes} bytes from ${url}`);
      chunks.push(chunk as Buffer);
    }
  });
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Runs one GET with the limits enforced by a single abort signal: a connect timer until the headers arrive, then a
 * stall timer that every chunk re-arms (`touch`), and a total timer. Errors come back as one readable reason.
 */
async function withDownload(
  url: string,
  limits: DownloadLimits,
  consume: (body: Readable, touch: () => void) => Promise<void>,
): Promise<void> {
  const controller = new AbortController();
  const abort = (reason: string) => controller.abort(new ReleaseDownloadError(reason));
  let stall = setTimeout(abort, limits.connectTimeoutMs, `no response within ${limits.connectTimeoutMs / 1000}s`);
  const total = setTimeout(abort, limits.totalTimeoutMs, `not finished within ${limits.totalTimeoutMs / 1000}s`);
  const touch = () => {
    clearTimeout(stall);
    stall = setTimeout(abort, limits.stallTimeoutMs, `stalled: no data for ${limits.stallTimeoutMs / 1000}s`);
  };
  try {
    const response = await fetch(url, { signal: controller.signal, redirect: 'follow' });
    if (!response.ok || response.body === null) {
      await response.body?.cancel();
      throw new ReleaseDownloadError(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
    }
    touch();
    await consume(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), touch);
  } catch (error) {
    // An abort surfaces as a generic AbortError; the signal's reason says which limit was hit.
    const reason: unknown = controller.signal.aborted ? controller.signal.reason : error;
    if (reason instanceof ReleaseDownloadError) throw reason;
    throw new ReleaseDownloadError(describeFetchError(reason));
  } finally {
    clearTimeout(stall);
    clearTimeout(total);
  }
}

/** `fetch failed` says nothing; its cause has the system error (`getaddrinfo ENOTFOUND github.com`). */
function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error && cause.message) return cause.message;
  return error.message;
}

/**
 * Extracts the `temporal` executable of a release archive into `directory` with the system `tar` (only that member,
 * so nothing else in the archive is written), and returns its path.
 */
export async function extractTemporalBinary(
  archive: string,
  directory: string,
  tar: string,
  env: DirectoryEnvironment,
): Promise<string> {
  await fs.mkdir(directory, { recursive: true });
  const result = await execa(tar, ['-xzf', archive, '-C', directory, 'temporal'], {
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    all: true,
    timeout: 120_000,
  });
  if (result.failed) {
    const output = (result.all ?? result.message).replace(/\s+/g, ' ').trim();
    throw new ReleaseDownloadError(
      `\`tar -xzf\` could not extract \`temporal\` from ${path.basename(archive)}: ${output}`,
    );
  }
  const binary = path.join(directory, 'temporal');
  const stats = await fs.lstat(binary).catch(() => undefined);
  if (!stats?.isFile()) throw new ReleaseDownloadError(`${path.basename(archive)} holds no regular file \`temporal\``);
  await fs.chmod(binary, 0o755);
  return binary;
}
