// Node: the Bash executor (TOOL-SPEC C.11 Bash, C.5.3). A failing command is a result for the model, not an exception;
// only the shell failing to start is an error. Output is streamed into bounded buffers, never buffered whole.
import { execa } from 'execa';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import type { Envelope, EnvelopeContext } from '../../protocol/envelope.js';
import { bash } from '../../tools/bash.js';
import type { CommandSandbox } from '../sandbox/command-sandbox.js';
import { sandboxedCommand } from '../sandbox/command-sandbox.js';
import type { CommandNetwork, CommandNetworkSettings } from '../sandbox/command-network.js';
import { commandNetworkSettings, openCommandNetwork, refusalNotice } from '../sandbox/command-network.js';
import type { NetworkRefusal } from '../sandbox/network-proxy.js';
import { spillEverywhere } from '../spill.js';
import type { MovedRepository, ProtectedScan } from '../sandbox/protected-paths.js';
import { moveCreatedRepositories, scanProtectedPaths } from '../sandbox/protected-paths.js';
import { resolveInWorkspace } from '../workspace.js';
import type { ToolActivityResult } from '../../protocol/tool-activity.js';
import { CommandHomeError, ensureCommandHome } from './command-home.js';
import { commandEnvironment } from './command-environment.js';
import type { ExecutorContext, ToolExecutor } from './types.js';

export { BASH_ENV_ADDITIONS, commandEnvironment, ENV_PASS_VARIABLE } from './command-environment.js';

/** Bytes of each stream kept in memory; the excess is counted and dropped (a short tail of it is still kept). */
export const MAX_CAPTURE_BYTES = 10 * 1024 * 1024;
/** Characters of a stream shown to the model before it is cut in the middle. */
export const STREAM_CHAR_CAP = 30_000;
/** Characters kept from the start of a cut stream. */
export const STREAM_HEAD_CHARS = 6_000;
/** Characters kept from the end of a cut stream. */
export const STREAM_TAIL_CHARS = 24_000;
/** Delay between SIGTERM and SIGKILL to the process group. */
export const KILL_GRACE_MS = 2_000;
/** Heartbeat period while the command runs. */
export const HEARTBEAT_INTERVAL_MS = 1_000;

// Beyond the 10 MiB cap the end of the output (test summaries, the error) still matters most, so a rolling tail of the
// dropped bytes is kept: enough for the 24,000 characters the model sees even in 4-byte UTF-8.
const DROPPED_TAIL_BYTES = 4 * STREAM_TAIL_CHARS;
// A background process (`server &`) inherits the pipes and can hold them open long after the shell exits.
const STREAM_DRAIN_GRACE_MS = 1_000;

/** Cuts a stream longer than STREAM_CHAR_CAP to its first 6,000 and last 24,000 characters around a marker. */
export function capStream(text: string, fullOutput: string): { text: string; truncated: boolean } {
  if (text.length <= STREAM_CHAR_CAP) return { text, truncated: false };
  let headEnd = STREAM_HEAD_CHARS;
  if (isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--;
  let tailStart = text.length - STREAM_TAIL_CHARS;
  if (isLowSurrogate(text.charCodeAt(tailStart))) tailStart++;
  const omitted = tailStart - headEnd;
  return {
    text: `${text.slice(0, headEnd)}\n… [${omitted} chars omitted; ${fullOutput}] …\n${text.slice(tailStart)}`,
    truncated: true,
  };
}

/** Content of a Bash spill file: both complete streams (C.11). */
export function formatOutputSpill(stdout: string, stderr: string): string {
  return `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}\n`;
}

/** One output stream: the first MAX_CAPTURE_BYTES in memory, a count of the rest and a rolling tail of it. */
class StreamCapture {
  totalBytes = 0;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    const room = MAX_CAPTURE_BYTES - this.headBytes;
    if (room > 0) {
      const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.head.push(kept);
      this.headBytes += kept.length;
      if (kept.length === chunk.length) return;
      chunk = chunk.subarray(room);
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= DROPPED_TAIL_BYTES) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  get droppedBytes(): number {
    return this.totalBytes - this.headBytes;
  }

  text(): string {
    // `stream: true` leaves a code point cut by the capture limit out instead of turning it into U+FFFD.
    const head = new TextDecoder().decode(Buffer.concat(this.head), { stream: this.droppedBytes > 0 });
    if (this.droppedBytes === 0) return head;
    let tail = Buffer.concat(this.tail);
    tail = tail.subarray(Math.max(0, tail.length - DROPPED_TAIL_BYTES));
    let start = 0;
    while (start < Math.min(3, tail.length) && (tail[start]! & 0xc0) === 0x80) start++;
    const dropped = this.droppedBytes - (tail.length - start);
    return `${head}\n… [${dropped} bytes beyond the ${MAX_CAPTURE_BYTES}-byte capture limit were not kept] …\n${new TextDecoder().decode(tail.subarray(start))}`;
  }
}

interface BashInput {
  command: string;
  cwd: string;
  timeout_ms: number;
}

interface ProcessOutcome {
  spawnError?: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  /** What the network proxy of an approved network command refused. */
  networkRefused?: NetworkRefusal[];
}

/**
 * The Bash executor: `bash --noprofile --norc -c <command>` in its own process group inside the workspace, in the
 * given OS sandbox (bubblewrap: the workspace writable, the rest read-only, offline; a command classified and approved
 * as `network_write` reaches its approved hosts through a proxy of its own, never the worker's control plane).
 */
export function createBashExecutor(
  sandbox: CommandSandbox,
  network: CommandNetworkSettings = commandNetworkSettings(process.env),
): ToolExecutor {
  return (context) => executeBash(context, sandbox, network);
}

async function executeBash(
  context: ExecutorContext,
  sandbox: CommandSandbox,
  network: CommandNetworkSettings,
): Promise<ToolActivityResult> {
  const parsed = bash.inputSchema.safeParse(context.request.input);
  if (!parsed.success) {
    const message = `Invalid arguments for Bash: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`;
    return {
      envelope: errorEnvelope({
        code: 'INVALID_PARAM',
        message,
        details: { reason: 'schema' },
        context: context.context,
      }),
    };
  }
  const input: BashInput = parsed.data;
  const classification = context.request.classification ?? { level: 'unclassified', rule: 'none' };

  const resolved = await resolveInWorkspace(context.root, input.cwd);
  if (!resolved.ok) {
    return {
      envelope: errorEnvelope({
        code: resolved.code,
        message: resolved.message,
        details: { param: 'cwd' },
        context: context.context,
      }),
    };
  }
  const envelopeContext: EnvelopeContext = { ...context.context, cwd: resolved.rel };
  if (!resolved.exists) {
    return {
      envelope: errorEnvelope({
        code: 'NOT_FOUND',
        message: `Directory '${input.cwd}' does not exist.`,
        details: { param: 'cwd' },
        context: envelopeContext,
      }),
    };
  }
  if (!(await stat(resolved.real)).isDirectory()) {
    return {
      envelope: errorEnvelope({
        code: 'INVALID_PARAM',
        message: `cwd '${input.cwd}' is not a directory.`,
        details: { reason: 'not_a_directory', param: 'cwd' },
        context: envelopeContext,
      }),
    };
  }

  const baseData = { command: input.command, cwd: resolved.rel };
  if (context.signal.aborted) {
    return {
      envelope: errorEnvelope({
        code: 'CANCELLED',
        message: 'Command was cancelled before it started.',
        data: { ...baseData, classification },
        context: envelopeContext,
      }),
    };
  }

  let home: string;
  try {
    home = await ensureCommandHome(context.dataDir);
  } catch (error) {
    if (!(error instanceof CommandHomeError)) throw error;
    return {
      envelope: errorEnvelope({
        code: 'EXECUTION_ERROR',
        message: error.message,
        data: { ...baseData, classification },
        context: envelopeContext,
      }),
    };
  }
  // Unless the operator approved this call, the protected paths are read-only in the sandbox; a repository the command
  // creates could not be mounted, so it is moved out afterwards (protected-paths.ts).
  const guarded = sandbox.kind === 'bubblewrap' && context.request.approved !== true;
  const scan: ProtectedScan | undefined = guarded
    ? await scanProtectedPaths(context.root, context.request.writeProtected)
    : undefined;

  const stdout = new StreamCapture();
  const stderr = new StreamCapture();
  const outcome = await runProcess(
    input,
    resolved.real,
    context,
    sandbox,
    { stdout, stderr, home, readOnly: scan?.readOnly ?? [] },
    network,
  );
  const moved: MovedRepository[] = scan
    ? await moveCreatedRepositories(
        context.root,
        scan.repositories,
        path.join(context.dataDir, 'created-repositories', `${safeName(context.request.callId)}-${Date.now()}`),
      )
    : [];
  const timeMs = context.elapsedMs();

  if (outcome.spawnError !== undefined) {
    return {
      envelope: errorEnvelope({
        code: 'EXECUTION_ERROR',
        message: `Failed to start bash: ${outcome.spawnError}`,
        data: { ...baseData, classification },
        stats: { time_ms: timeMs },
        context: envelopeContext,
      }),
    };
  }

  const stdoutText = stdout.text();
  const stderrText = stderr.text();
  let fullOutputPath: string | undefined;
  let fullOutputKey: string | undefined;
  let pointer = '';
  if (stdoutText.length > STREAM_CHAR_CAP || stderrText.length > STREAM_CHAR_CAP) {
    try {
      const spilled = await spillEverywhere(
        { ...spillTarget(context), root: context.root, suffix: 'output' },
        formatOutputSpill(stdoutText, stderrText),
        context.store,
      );
      fullOutputPath = spilled.path;
      fullOutputKey = spilled.key;
      pointer = `full output: ${fullOutputPath}`;
    } catch (error) {
      // The result of a command that already ran is worth more than the spill file: report it without the file.
      pointer = `full output could not be saved: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  const cappedStdout = capStream(stdoutText, pointer);
  const cappedStderr = capStream(stderrText, pointer);

  const data: Record<string, unknown> = {
    command: input.command,
    cwd: resolved.rel,
    exit_code: outcome.exitCode,
    signal: outcome.signal,
    timed_out: outcome.timedOut,
    stdout: cappedStdout.text,
    stderr: cappedStderr.text,
    stdout_truncated: cappedStdout.truncated,
    stderr_truncated: cappedStderr.truncated,
    ...(fullOutputPath !== undefined ? { full_output_path: fullOutputPath } : {}),
    ...(fullOutputKey !== undefined ? { full_output_key: fullOutputKey } : {}),
    ...(moved.length > 0 ? { moved_repositories: moved } : {}),
    ...(outcome.networkRefused?.length ? { network_refused: outcome.networkRefused } : {}),
    classification,
  };
  const stats: Record<string, unknown> & { time_ms: number } = {
    stdout_bytes: stdout.totalBytes,
    stderr_bytes: stderr.totalBytes,
    ...(stdout.droppedBytes > 0 ? { stdout_dropped_bytes: stdout.droppedBytes } : {}),
    ...(stderr.droppedBytes > 0 ? { stderr_dropped_bytes: stderr.droppedBytes } : {}),
    time_ms: timeMs,
  };
  const suffix =
    (fullOutputPath !== undefined ? ` Output was truncated; full output: ${fullOutputPath}.` : '') +
    movedText(moved) +
    refusalNotice(outcome.networkRefused ?? []) +
    readOnlyText(outcome, stderrText, scan, context.root);
  return { envelope: toEnvelope(outcome, input, timeMs, suffix, { data, stats, context: envelopeContext }) };
}

function toEnvelope(
  outcome: ProcessOutcome,
  input: BashInput,
  timeMs: number,
  suffix: string,
  parts: {
    data: Record<string, unknown>;
    stats: Record<string, unknown> & { time_ms: number };
    context: EnvelopeContext;
  },
): Envelope {
  if (outcome.cancelled) {
    return errorEnvelope({
      code: 'CANCELLED',
      message: `Command was cancelled after ${timeMs} ms and its process group was killed.`,
      ...parts,
    });
  }
  if (outcome.timedOut) {
    const hasOutput = (parts.stats.stdout_bytes as number) + (parts.stats.stderr_bytes as number) > 0;
    if (!hasOutput) {
      return errorEnvelope({
        code: 'TIMEOUT',
        message: `Command timed out after ${input.timeout_ms} ms with no output and was killed.`,
        ...parts,
      });
    }
    return okEnvelope({
      status: 'partial',
      text: `Command timed out after ${input.timeout_ms} ms and was killed; its output so far is shown.${suffix}`,
      ...parts,
    });
  }
  if (outcome.exitCode === null) {
    return okEnvelope({
      status: 'partial',
      text: `Command was killed by signal ${outcome.signal ?? 'unknown'} after ${timeMs} ms.${suffix}`,
      ...parts,
    });
  }
  // C.1: truncated output is "usable but discounted", so a clean exit with cut streams is partial too.
  const truncated = parts.data.stdout_truncated === true || parts.data.stderr_truncated === true;
  return okEnvelope({
    status: outcome.exitCode === 0 && !truncated ? 'success' : 'partial',
    text: `Command exited with code ${outcome.exitCode} in ${timeMs} ms.${suffix}`,
    ...parts,
  });
}

/** What the model is told about repositories its command created (their config could run programs for the operator). */
function movedText(moved: readonly MovedRepository[]): string {
  if (moved.length === 0) return '';
  const list = moved.map((entry) => `${entry.path} → ${entry.moved_to}`).join(', ');
  return (
    ` The command created a git repository, which only an approved command may do (its config and hooks run programs ` +
    `for whoever uses git here next); it was moved out of the workspace: ${list}. Ask the operator to approve the ` +
    `command to keep it.`
  );
}

/** Why a write failed with EROFS inside the workspace: the protected paths of an unapproved call are read-only. */
function readOnlyText(outcome: ProcessOutcome, stderr: string, scan: ProtectedScan | undefined, root: string): string {
  if (!scan || scan.readOnly.length === 0 || outcome.exitCode === 0 || !stderr.includes('Read-only file system')) {
    return '';
  }
  const shown = scan.readOnly.slice(0, 10).map((entry) => path.relative(root, entry));
  const more = scan.readOnly.length > shown.length ? ` and ${scan.readOnly.length - shown.length} more` : '';
  return (
    ` Protected paths are read-only for a command the operator did not approve (${shown.join(', ')}${more}); ` +
    `a command that must change them (git add, git commit) has to be approved.`
  );
}

/** A call id as one path component. */
function safeName(callId: string): string {
  const name = callId.replace(/[^A-Za-z0-9_.-]/g, '_');
  return name === '' || name === '.' || name === '..' ? '_' : name;
}

function spillTarget(context: ExecutorContext): {
  taskId: string;
  turn: number;
  index: number;
  toolName: string;
  callId: string;
} {
  const { taskId, turn, index, callId } = context.request;
  return { taskId, turn, index, toolName: 'Bash', callId };
}

type ShellCaptures = { stdout: StreamCapture; stderr: StreamCapture; home: string; readOnly: readonly string[] };

/** Runs the command with the network it was approved for (none unless `network_write`), closed when it ends. */
async function runProcess(
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

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
