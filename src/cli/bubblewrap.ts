// Provisions bubblewrap, the command sandbox, the way the Temporal CLI is provisioned: an installed one is used, else
// Debian's package is fetched with `apt-get download` (no root needed) and its binary kept in the cache.
import { copyFile, chmod, mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { findOnPath } from '../activities/executables.js';
import { BWRAP_PATH_VARIABLE, SANDBOX_VARIABLE } from '../activities/sandbox/command-sandbox.js';
import { cacheDir } from './state-dir.js';
import type { DirectoryEnvironment } from './state-dir.js';

const DOWNLOAD_TIMEOUT_MS = 120_000;

/** Where a fetched bwrap is kept: `<cacheDir>/bin/bwrap`. */
export function cachedBubblewrapPath(env: DirectoryEnvironment = process.env): string {
  return path.join(cacheDir(env), 'bin', 'bwrap');
}

/**
 * A bwrap for the worker: DURABLE_AGENT_BWRAP_PATH, `bwrap` on PATH, the cached one, or one fetched now. Undefined
 * when the sandbox is off or none could be had (the worker then explains why and how to opt out).
 */
export async function provisionBubblewrap(
  env: DirectoryEnvironment = process.env,
  log: (line: string) => void = () => {},
): Promise<string | undefined> {
  if ((env[SANDBOX_VARIABLE] ?? '').trim().toLowerCase() === 'off') return undefined;
  const configured = env[BWRAP_PATH_VARIABLE];
  if (configured) return configured;
  const installed = await findOnPath('bwrap', env);
  if (installed) return installed;
  const cached = cachedBubblewrapPath(env);
  if (existsSync(cached)) return cached;
  log(`bubblewrap (the command sandbox) is not installed: fetching Debian's package into ${path.dirname(cached)}…`);
  try {
    await fetchDebianBubblewrap(cached);
    log(`bubblewrap cached at ${cached}`);
    return cached;
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    log(`could not fetch bubblewrap (${why}); install it with: apt-get install bubblewrap`);
    return undefined;
  }
}

async function fetchDebianBubblewrap(destination: string): Promise<void> {
  const staging = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-bwrap-'));
  try {
    await execa('apt-get', ['download', 'bubblewrap'], { cwd: staging, timeout: DOWNLOAD_TIMEOUT_MS, stdin: 'ignore' });
    const archive = (await readdir(staging)).find((name) => name.endsWith('.deb'));
    if (!archive) throw new Error('apt-get download left no .deb');
    const extracted = path.join(staging, 'root');
    await execa('dpkg-deb', ['-x', path.join(staging, archive), extracted], { timeout: DOWNLOAD_TIMEOUT_MS });
    await mkdir(path.dirname(destination), { recursive: true });
    // Staged next to its destination and renamed, so a concurrent start never sees half a binary.
    const partial = `${destination}.${process.pid}.partial`;
    await copyFile(path.join(extracted, 'usr', 'bin', 'bwrap'), partial);
    await chmod(partial, 0o755);
    await rename(partial, destination);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
