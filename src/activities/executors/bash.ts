// Node: the Bash executor (docs/tools.md §11.6 Bash, §5.3). A failing command is a result for the model, not an
// exception; only the shell failing to start is an error. Output is streamed into bounded buffers, never buffered whole
// (bash-output.ts); the process itself is run by bash-process.ts.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import type { Envelope, EnvelopeContext } from '../../protocol/envelope.js';
import type { ToolActivityResult } from '../../protocol/tool-activity.js';
import { bash } from '../../tools/bash.js';
import type { CommandSandbox } from '../sandbox/command-sandbox.js';
import type { CommandNetworkSettings } from '../sandbox/command-network.js';
import { commandNetworkSettings, refusalNotice } from '../sandbox/command-network.js';
import type { MovedRepository, ProtectedScan } from '../sandbox/protected-paths.js';
import { moveCreatedRepositories, scanProtectedPaths } from '../sandbox/protected-paths.js';
import { spillEverywhere } from '../spill.js';
import { resolveInWorkspace } from '../workspace.js';
import { capStream, formatOutputSpill, STREAM_CHAR_CAP, StreamCapture } from './bash-output.js';
import type { BashInput, ProcessOutcome } from './bash-process.js';
import { runProcess } from './bash-process.js';
import { CommandHomeError, ensureCommandHome } from './command-home.js';
import type { ExecutorContext, ToolExecutor } from './types.js';

export { BASH_ENV_ADDITIONS, commandEnvironment, ENV_PASS_VARIABLE } from './command-environment.js';

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
  // §1: truncated output is "usable but discounted", so a clean exit with cut streams is partial too.
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
