// A stand-in worker process for the sandbox tests that must run as another user (an unprivileged worker): runs one
// Bash call in the bubblewrap sandbox and prints its envelope as JSON. Argument: a JSON object with the workspace, the
// command, the worker's data directory and optional request fields (`approved`).
import { createBashExecutor } from '../../src/activities/executors/bash.js';
import { runTool } from '../../src/activities/run-tool.js';
import { resolveCommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';

const { workspace, command, dataDir, approved } = JSON.parse(process.argv[2] ?? '{}') as {
  workspace: string;
  command: string;
  dataDir: string;
  approved?: boolean;
};
const sandbox = await resolveCommandSandbox({ ...process.env, DURABLE_AGENT_SANDBOX: 'bubblewrap' });
const input = { command, cwd: '.', timeout_ms: 30_000 };
const { envelope } = await runTool(
  'Bash',
  createBashExecutor(sandbox),
  {
    taskId: 'task-child',
    turn: 1,
    index: 0,
    callId: 'call_1',
    workspace,
    input,
    paramsInput: input,
    maximumAttempts: 1,
    ...(approved ? { approved } : {}),
  },
  { dataDir },
);
process.stdout.write(JSON.stringify(envelope));
