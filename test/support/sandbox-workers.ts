// The two workers the sandbox tests run Bash as: this process (root here, as in most containers) and an unprivileged
// one (uid 65534, started with setpriv), so that each promise is shown to hold for both.
import { execa } from 'execa';
import { lchown, lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { createBashExecutor } from '../../src/activities/executors/bash.js';
import { runTool } from '../../src/activities/run-tool.js';
import type { CommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';
import type { Envelope } from '../../src/protocol/envelope.js';

/** The unprivileged worker's uid and gid (nobody). */
export const UNPRIVILEGED_UID = 65534;

export type WorkerKind = 'this process' | 'an unprivileged worker';

/** Whether this process can start a worker as another user (it is root and setpriv exists). */
export function canRunUnprivileged(): boolean {
  return process.getuid?.() === 0;
}

export interface BashCall {
  workspace: string;
  command: string;
  /** The worker's data directory. */
  dataDir: string;
  approved?: boolean;
}

/** Runs one Bash call as `kind` and returns its envelope. */
export async function runBashAs(kind: WorkerKind, sandbox: CommandSandbox, call: BashCall): Promise<Envelope> {
  if (kind === 'this process') {
    const input = { command: call.command, cwd: '.', timeout_ms: 30_000 };
    const { envelope } = await runTool(
      'Bash',
      createBashExecutor(sandbox),
      {
        taskId: 'task-s',
        turn: 1,
        index: 0,
        callId: 'call_1',
        workspace: call.workspace,
        input,
        paramsInput: input,
        maximumAttempts: 1,
        ...(call.approved ? { approved: true } : {}),
      },
      { dataDir: call.dataDir },
    );
    return envelope;
  }
  const executable = sandbox.kind === 'bubblewrap' ? sandbox.executable : 'bwrap';
  const child = path.join(import.meta.dirname, 'sandbox-bash-child.ts');
  const result = await execa(
    'setpriv',
    [
      '--reuid',
      String(UNPRIVILEGED_UID),
      '--regid',
      String(UNPRIVILEGED_UID),
      '--clear-groups',
      process.execPath,
      '--import',
      'tsx',
      child,
      JSON.stringify(call),
    ],
    {
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/nonexistent', DURABLE_AGENT_BWRAP_PATH: executable },
      extendEnv: false,
      cwd: path.join(import.meta.dirname, '..', '..'),
      reject: false,
    },
  );
  if (result.exitCode !== 0) throw new Error(`the unprivileged worker failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Envelope;
}

/** Hands a directory tree to the unprivileged worker, as its own workspace or data directory would be. */
export async function giveTo(kind: WorkerKind, directory: string): Promise<void> {
  if (kind === 'this process') return;
  await lchown(directory, UNPRIVILEGED_UID, UNPRIVILEGED_UID);
  if (!(await lstat(directory)).isDirectory()) return;
  for (const entry of await readdir(directory)) await giveTo(kind, path.join(directory, entry));
}
