// System tools that some tests need but a fresh machine may lack (today: ripgrep). The test setup fetches Debian's
// package into the cache when none is installed; a test that still has none is skipped with the reason on a
// developer's machine, and fails in CI (CI=true), where .ci/run installs it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'vitest';
import { locateRipgrep, RG_PATH_VARIABLE } from '../../src/activities/search/grep-rg.js';
import { fetchDebianBinary } from '../../src/host/debian-binary.js';
import { cacheDir } from '../../src/host/state-dir.js';
import { findOnPath } from '../../src/host/executables.js';

/** A tool a test needs is not installed; the message says how to install it. */
export class ToolUnavailableError extends Error {
  override name = 'ToolUnavailableError';
}

let ripgrep: Promise<string | undefined> | undefined;

/** The ripgrep binary (DURABLE_AGENT_RG_PATH, else `rg` on PATH), looked up once per test process. */
export function findRipgrep(): Promise<string | undefined> {
  ripgrep ??= locateRipgrep();
  return ripgrep;
}

/** Why ripgrep tests cannot run here: the skip note, shared by every such test so the summary counts them together. */
export function ripgrepMissingReason(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[RG_PATH_VARIABLE];
  const where = configured ? `${RG_PATH_VARIABLE}=${configured} is not an executable` : 'ripgrep (rg) not on PATH';
  return `${where} — install it (apt-get install ripgrep) to run them`;
}

/**
 * The ripgrep binary for a test that needs it. Without one, skips the test with the reason, or in CI throws
 * `ToolUnavailableError` so the missing tool fails the run instead of hiding tests.
 */
export async function requireRipgrep(context: TestContext): Promise<string> {
  const found = await findRipgrep();
  if (found !== undefined) return found;
  const reason = ripgrepMissingReason();
  if (process.env.CI === 'true') throw new ToolUnavailableError(`${reason} (CI=true: tests are not skipped in CI)`);
  context.skip(reason);
}

/**
 * For the test setup: when no ripgrep is installed, Debian's is fetched into the cache (`<cacheDir>/bin/rg`, like
 * bubblewrap) and named in DURABLE_AGENT_RG_PATH, which the test processes inherit. Says why when it cannot be had.
 */
export async function provisionRipgrep(log: (line: string) => void): Promise<void> {
  if (await locateRipgrep()) return;
  if (process.env[RG_PATH_VARIABLE]) return; // named, but not an executable: the skip note says so
  const cached = path.join(cacheDir(), 'bin', 'rg');
  if (!existsSync(cached)) {
    log(`ripgrep is not installed: fetching Debian's package into ${path.dirname(cached)}…`);
    try {
      await fetchDebianBinary('ripgrep', 'usr/bin/rg', cached);
    } catch (error) {
      log(`could not fetch ripgrep (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
      return;
    }
  }
  process.env[RG_PATH_VARIABLE] = cached;
}

/**
 * Headless Chromium for the Web UI tests. Debian's package is too large to fetch into the cache, so without one the
 * test is skipped with the reason on a developer's machine, and fails in CI (CI=true), where .ci/run installs it.
 */
export async function requireChromium(context: TestContext): Promise<string> {
  const found = await findOnPath('chromium');
  if (found !== undefined) return found;
  const reason = 'chromium not on PATH — install it (apt-get install chromium) to run the Web UI tests';
  if (process.env.CI === 'true') throw new ToolUnavailableError(`${reason} (CI=true: tests are not skipped in CI)`);
  context.skip(reason);
  throw new Error('unreachable: skip() throws');
}
