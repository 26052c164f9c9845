// System tools that some tests need but a fresh machine may lack (today: ripgrep). A test that needs a missing tool
// is skipped with the reason on a developer's machine; in CI (CI=true), where .ci/run installs them, it fails.
import type { TestContext } from 'vitest';
import { locateRipgrep, RG_PATH_VARIABLE } from '../../src/activities/search/grep-rg.js';

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
