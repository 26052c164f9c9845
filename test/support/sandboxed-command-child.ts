// A stand-in worker process for the sandbox tests: runs one Bash call in the bubblewrap sandbox and waits for it, so a
// test can SIGKILL this process mid-command. Arguments: <workspace> <command>.
import { createBashExecutor } from '../../src/activities/executors/bash.js';
import { runTool } from '../../src/activities/run-tool.js';
import { resolveCommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';

const [workspace, command] = process.argv.slice(2);
if (!workspace || !command) throw new Error('usage: sandboxed-command-child.ts <workspace> <command>');
const sandbox = await resolveCommandSandbox({ ...process.env, DURABLE_AGENT_SANDBOX: 'bubblewrap' });
const input = { command, cwd: '.', timeout_ms: 120_000 };
await runTool('Bash', createBashExecutor(sandbox), {
  taskId: 'task-child',
  turn: 1,
  index: 0,
  callId: 'call_1',
  workspace,
  input,
  paramsInput: input,
  maximumAttempts: 1,
});
