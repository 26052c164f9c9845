// Node: runs one Bash command: `bash --noprofile --norc -c` in its own process group, in the command sandbox, with
// the network it was approved for; the timeout and cancellation reach the whole group, and a heartbeat reports progress.
import { execa } from 'execa';
import type { CommandSandbox } from '../sandbox/command-sandbox.js';
import { sandboxedCommand } from '../sandbox/command-sandbox.js';
import type { CommandNetwork, CommandNetworkSettings } from '../sandbox/command-network.js';
import { openCommandNetwork } from '../sandbox/command-network.js';
import type { NetworkRefusal } from '../sandbox/network-proxy.js';
import type { StreamCapture } from './bash-output.js';
import { commandEnvironment } from './command-environment.js';
import type { ExecutorContext } from './types.js';

/** Delay between SIGTERM and SIGKILL to the process group. */
const KILL_GRACE_MS = 2_000;
/** Heartbeat period while the command runs. */
const HEARTBEAT_INTERVAL_MS = 1_000;

// A background process (`server &`) inherits the pipes and can hold them open long after the shell exits.
const STREAM_DRAIN_GRACE_MS = 1_000;

/** The Bash tool's arguments, validated. */
export interface BashInput {
  command: string;
  cwd: string;
  timeout_ms: number;
}

/** How the command ended. */
export interface ProcessOutcome {
  spawnError?: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  /** What the network proxy of an approved network command refused. */
  networkRefused?: NetworkRefusal[];
}

type ShellCaptures = { stdout: StreamCapture; stderr: StreamCapture; home: string; readOnly: readonly string[] };

/** Runs the command with the network it was approved for (none unless `network_write`), closed when it ends. */
export async function runProcess(
  input: BashInput,
  cwd: string,
  context: ExecutorContext,
  sandbox: CommandSandbox,
  captures: ShellCaptures,
  settings: CommandNetworkSettings,
): Promise<ProcessOutcome> {
  const classification = context.request.classification;
  const network =
    classification?.level === 'network_write' && sandbox.kind === 'bubblewrap'
      ? await openCommandNetwork(settings, classification.networkHosts)
      : undefined;
  try {
    const outcome = await runShell(input, cwd, context, sandbox, captures, network);
    return network ? { ...outcome, networkRefused: network.refusals() } : outcome;
  } finally {
    await network?.close();
  }
}

/** Spawns the shell, streams its output into the captures, and enforces the timeout and cancellation on the whole group. */
async function runShell(
  input: BashInput,
  cwd: string,
  context: ExecutorContext,
  sandbox: CommandSandbox,
  { stdout, stderr, home, readOnly }: ShellCaptures,
  network: CommandNetwork | undefined,
): Promise<ProcessOutcome> {
  const env = commandEnvironment(process.env, {
    runNames: context.request.envPass ?? [],
    // In the sandbox /tmp is the command's own, discarded when it ends.
    overrides: { HOME: home, ...(sandbox.kind === 'bubblewrap' ? { TMPDIR: '/tmp' } : {}) },
  });
  const shell = ['bash', '--noprofile', '--norc', '-c', input.command];
  const { file, args } = sandboxedCommand(sandbox, network ? network.command(shell) : shell, {
    root: context.root,
    cwd,
    network: network?.sandbox ?? false,
    pathVariable: env.PATH,
    commandHome: home,
    readOnlyInWorkspace: readOnly,
  });
  const subprocess = execa(file, args, {
    cwd,
    env,
    extendEnv: false,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: false,
    reject: false,
    // Its own process group, so a timeout reaches every descendant (`make` → `node` → …) with one kill(-pid).
    detached: true,
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    subprocess.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const pid = subprocess.pid;
  if (pid === undefined) {
    const result = await subprocess;
    return {
      spawnError: result.originalMessage || result.message || 'unknown error',
      exitCode: null,
      signal: null,
      timedOut: false,
      cancelled: false,
    };
  }

  subprocess.stdout.on('data', (chunk: Uint8Array) => stdout.push(Buffer.from(chunk)));
  subprocess.stderr.on('data', (chunk: Uint8Array) => stderr.push(Buffer.from(chunk)));
  const streamsClosed = Promise.all([
    new Promise((resolve) => subprocess.stdout.once('close', resolve)),
    new Promise((resolve) => subprocess.stderr.once('close', resolve)),
  ]);

  let timedOut = false;
  let cancelled = false;
  let killTimer: NodeJS.Timeout | undefined;
  const terminate = (): void => {
    if (killTimer) return;
    signalGroup(pid, 'SIGTERM');
    // Left to fire even after we return: a descendant that ignores SIGTERM must not outlive its grace period.
    killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref();
  };
  const timeout = setTimeout(() => {
    timedOut = true;
    terminate();
  }, input.timeout_ms);
  const onAbort = (): void => {
    cancelled = true;
    terminate();
  };
  context.signal.addEventListener('abort', onAbort, { once: true });
  context.heartbeat({ stdout_bytes: 0, stderr_bytes: 0 });
  const heartbeat = setInterval(
    () => context.heartbeat({ stdout_bytes: stdout.totalBytes, stderr_bytes: stderr.totalBytes }),
    HEARTBEAT_INTERVAL_MS,
  );

  try {
    const exit = await exited;
    clearTimeout(timeout);
    context.signal.removeEventListener('abort', onAbort);
    let drainTimer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      streamsClosed.then(() => true),
      new Promise<boolean>((resolve) => {
        drainTimer = setTimeout(() => resolve(false), STREAM_DRAIN_GRACE_MS);
      }),
    ]);
    clearTimeout(drainTimer);
    if (!drained) {
      subprocess.stdout.destroy();
      subprocess.stderr.destroy();
    }
    await subprocess;
    return { exitCode: exit.code, signal: exit.signal, timedOut, cancelled };
  } finally {
    clearTimeout(timeout);
    clearInterval(heartbeat);
    context.signal.removeEventListener('abort', onAbort);
    // Once the whole group is gone its id may be reused, so the pending SIGKILL must not fire.
    if (killTimer && !groupExists(pid)) clearTimeout(killTimer);
  }
}

function groupExists(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: every process of the group has already exited.
  }
}
