// The command sandbox for tests that need it. Without a usable bubblewrap such a test is skipped with the reason on a
// developer's machine; in CI (CI=true), where .ci/run installs it, it fails.
import type { TestContext } from 'vitest';
import type { CommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';
import { resolveCommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';
import { provisionBubblewrap } from '../../src/host/bubblewrap.js';
import { ToolUnavailableError } from './optional-tools.js';

/** The bubblewrap sandbox as a worker with `env` would resolve it (by default this process's environment). */
export async function requireBubblewrap(
  context: TestContext,
  env: NodeJS.ProcessEnv = process.env,
  hidden: readonly string[] = [],
): Promise<Extract<CommandSandbox, { kind: 'bubblewrap' }>> {
  try {
    const executable = await provisionBubblewrap({ ...env, DURABLE_AGENT_SANDBOX: 'bubblewrap' });
    const sandbox = await resolveCommandSandbox(
      { ...env, DURABLE_AGENT_SANDBOX: 'bubblewrap' },
      { ...(executable ? { executable } : {}), hidden },
    );
    if (sandbox.kind === 'bubblewrap') return sandbox;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const reason = 'bubblewrap (bwrap) not usable here — install it (apt-get install bubblewrap) to run them';
    if (process.env.CI === 'true') throw new ToolUnavailableError(`${why} (CI=true: tests are not skipped in CI)`);
    context.skip(reason);
  }
  throw new Error('unreachable: the sandbox resolved to off');
}
