// Provisions bubblewrap, the command sandbox, the way the Temporal CLI is provisioned: an installed one is used, else
// Debian's package is fetched with `apt-get download` (no root needed) and its binary kept in the cache.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findOnPath } from './executables.js';
import { BWRAP_PATH_VARIABLE, SANDBOX_VARIABLE } from '../activities/sandbox/command-sandbox.js';
import { fetchDebianBinary } from './debian-binary.js';
import { cacheDir } from './state-dir.js';
import type { DirectoryEnvironment } from './state-dir.js';

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
    await fetchDebianBinary('bubblewrap', 'usr/bin/bwrap', cached);
    log(`bubblewrap cached at ${cached}`);
    return cached;
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    log(`could not fetch bubblewrap (${why}); install it with: apt-get install bubblewrap`);
    return undefined;
  }
}
