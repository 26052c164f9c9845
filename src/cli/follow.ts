// Node: following a run from this terminal: its progress, the approvals it asks for, and how it ended.
import type {
  WorkflowExecutionStatusName,
  WorkflowHandle,
  WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import type { Connected } from './connect.js';
import { operatorName } from './operator.js';
import type { OperatorSigner } from './operator-signing.js';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { pollPause } from './poll-pause.js';
import { unseenFinalProgress } from './final-progress.js';
import type { AgentResult } from '../protocol/run-report.js';
import { emptyUsage } from '../core/state.js';
import type { agentWorkflow } from '../workflows/agent.js';
import type { ApprovalDecision, PendingApproval } from '../protocol/approval.js';
import type { AgentStateView } from '../protocol/run-messages.js';
import { approveToolCall, stateQuery } from '../protocol/run-messages.js';
import { createInterface } from 'node:readline/promises';
import { visibleLines, visibleText } from '../core/terminal-text.js';
import { color, formatProgress, log, outJson, printRunEnd, shellWord, terminalSafe } from './output.js';
import { runStatusOf } from '../history/run-status.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import { storedText } from './stored-text.js';
import type { AttachedInput } from './attached-input.js';
import { startAttachedInput } from './attached-input.js';
import type { LiveOutput } from './live-output.js';

/** How a followed run ended. */
export interface FollowOutcome {
  result: AgentResult;
  exitCode: number;
}

const POLL_MS = 300;

/** Prints progress lines while the run works, then returns its result (also for failed or cancelled runs). */
export async function followRun(
  handle: WorkflowHandle<typeof agentWorkflow>,
  options: {
    quiet?: boolean;
    signal?: AbortSignal;
    prompt?: boolean;
    signer?: OperatorSigner;
    keys?: AttachedInput;
    live?: LiveOutput;
  } = {},
): Promise<FollowOutcome> {
  const { live } = options;
  const printer = progressPrinter(handle.workflowId, 0, { quiet: options.quiet ?? false, ...(live ? { live } : {}) });
  const readNew = async (): Promise<void> => {
    for (const approval of printer.show(await handle.query(stateQuery, printer.seen))) {
      if (!options.prompt) continue;
      // While the question is on the screen, live output waits and the line typed answers it (not a steering message).
      live?.hold();
      options.keys?.suspend();
      await askAtTerminal(handle, approval, options.signal, options.signer).finally(() => {
        options.keys?.resume();
        live?.release();
      });
    }
  };
  // One reader at a time (the poll and live output's catch-up both ask), so no line is printed twice.
  let reading: Promise<void> = Promise.resolve();
  const printNew = (): Promise<void> => (reading = reading.catch(() => undefined).then(readNew));
  live?.beforeEachCall(printNew);
  let done = false;
  const outcome = handle.result().then(
    async (result): Promise<FollowOutcome> => {
      const status = runStatusOf('COMPLETED', result.status);
      return { result: { ...result, status, answer: await storedText(result.answer) }, exitCode: exitCodeOf(status) };
    },
    (error: unknown): FollowOutcome => toOutcome(error),
  );
  void outcome.finally(() => {
    done = true;
  });
  try {
    while (!done && !options.signal?.aborted) {
      // A query can fail while no worker is polling yet; the run is still going, so keep waiting.
      await printNew().catch(() => undefined);
      await pollPause(POLL_MS, outcome);
    }
  } finally {
    await live?.stop();
  }
  if (options.signal?.aborted) throw new DetachedError();
  const ended = await outcome;
  const unseen = unseenFinalProgress(ended.result, printer.seen);
  if (unseen) printer.show({ progress: unseen, pendingApprovals: [] });
  else await printNew().catch(() => undefined);
  return ended;
}

/** What a follower prints of a run: its new progress lines, and each pending approval once. */
export interface ProgressPrinter {
  /** The sequence number of the last progress line shown (the `state` query's `afterSeq`). */
  readonly seen: number;
  /** Prints what `view` adds and returns the approvals announced for the first time. */
  show(view: Pick<AgentStateView, 'progress' | 'pendingApprovals'>): PendingApproval[];
}

/** A printer for `workflowId` that has shown the lines up to `afterSeq`; `quiet` prints nothing but still tracks. */
export function progressPrinter(
  workflowId: string,
  afterSeq: number,
  options: { quiet: boolean; live?: LiveOutput },
): ProgressPrinter {
  let seen = afterSeq;
  const announced = new Set<string>();
  const print = (line: string): void => {
    if (options.quiet) return;
    options.live?.beforeLine();
    log(line);
  };
  return {
    get seen() {
      return seen;
    },
    show(view) {
      for (const entry of view.progress) {
        if (entry.seq <= seen) continue;
        print(formatProgress(entry));
        seen = entry.seq;
      }
      const fresh = view.pendingApprovals.filter((approval) => !announced.has(approval.callId));
      for (const approval of fresh) {
        announced.add(approval.callId);
        print(formatApproval(workflowId, approval));
      }
      return fresh;
    },
  };
}

/**
 * A pending approval as `run` and `watch` announce it: the exact command (or path) the call would run with, shown on one
 * line with every character a terminal would act on or hide escaped, and a note when anything was.
 */
export function formatApproval(workflowId: string, approval: PendingApproval): string {
  const raw = approval.command ?? approval.path ?? '';
  const subject = visibleText(raw);
  const what = `${visibleText(approval.tool)} ${subject}`;
  const remember = approval.key ? ' [--remember]' : '';
  return [
    `${color.yellow('approval needed')} ${visibleText(approval.callId)}  ${what}  (${visibleText(approval.level)}: ${visibleText(approval.reason)})${subAgentNote(approval)}`,
    ...(subject !== raw
      ? [
          color.yellow(
            `  note: the ${approval.command !== undefined ? 'command' : 'path'} is shown with escapes: \\xHH and \\uHHHH ` +
              'stand for characters a terminal would act on or hide, \\\\ before x, u or an escape for one backslash; ' +
              'the call runs the exact text they stand for',
          ),
        ]
      : []),
    color.dim(
      `  durable-agent approve ${shellWord(workflowId)} ${shellWord(approval.callId)}${remember}   |   durable-agent deny ${shellWord(workflowId)} ${shellWord(approval.callId)}`,
    ),
  ].join('\n');
}

/** Whose call it is when a sub-agent asks: its id on the root is the sub-agent's path, a slash, then its own call id. */
function subAgentNote(approval: PendingApproval): string {
  const cut = approval.callId.lastIndexOf('/');
  return cut < 0 ? '' : color.dim(`  asked by sub-agent ${visibleText(approval.callId.slice(0, cut))}`);
}

/** `--ask prompt`: the person at the terminal decides, through the same Update the approve/deny commands use. */
async function askAtTerminal(
  handle: WorkflowHandle<typeof agentWorkflow>,
  approval: PendingApproval,
  signal?: AbortSignal,
  signer?: OperatorSigner,
): Promise<void> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const choices = approval.key ? `[y]es / [n]o / [a]lways for "${visibleText(approval.key)}"` : '[y]es / [n]o';
    const question = `approve ${visibleText(approval.callId)}? ${choices} `;
    const answer = (await terminal.question(terminalSafe(question, false), signal ? { signal } : {}))
      .trim()
      .toLowerCase();
    const approve = answer === 'y' || answer === 'yes' || answer === 'a' || answer === 'always';
    const remember = approval.key !== undefined && (answer === 'a' || answer === 'always');
    const decision: ApprovalDecision = {
      tool_call_id: approval.callId,
      decision: approve ? 'approve' : 'reject',
      ...(remember ? { remember } : {}),
      ...(approve ? {} : { reason: 'rejected at the terminal' }),
      decided_by: operatorName(),
    };
    // The embedded worker takes only decisions signed with the operator's key, for this very call.
    await handle
      .executeUpdate(approveToolCall, {
        args: [signer ? signer.decision(handle.workflowId, approval, decision) : decision],
      })
      .catch((error: unknown) =>
        log(
          color.red(
            `could not record the decision: ${visibleLines(error instanceof Error ? error.message : String(error))}`,
          ),
        ),
      );
  } catch {
    // Ctrl-C at the prompt: stop asking; the approval stays pending for the CLI or the Web UI.
  } finally {
    terminal.close();
  }
}

/** The follower stopped following (Ctrl-C); the run goes on. */
export class DetachedError extends Error {
  override name = 'DetachedError';
}

function toOutcome(error: unknown): FollowOutcome {
  if (!(error instanceof WorkflowFailedError)) throw error;
  const cause = error.cause;
  const execution = endedAs(cause);
  const status = runStatusOf(execution);
  const empty: AgentResult = { status, answer: null, steps: 0, toolCalls: 0, usage: emptyUsage() };
  const outcome = (result: AgentResult): FollowOutcome => ({ result, exitCode: exitCodeOf(result.status) });
  if (execution === 'CANCELLED') return outcome({ ...empty, error: 'cancelled' });
  if (execution === 'TERMINATED') {
    return outcome({ ...empty, error: cause?.message ? `terminated: ${cause.message}` : 'terminated' });
  }
  if (execution === 'TIMED_OUT') return outcome({ ...empty, error: 'timed out' });
  if (cause instanceof ApplicationFailure && cause.type === 'AgentRunFailed') {
    const details = cause.details?.[0] as AgentResult | undefined;
    return outcome(details ? { ...details, status } : { ...empty, error: cause.message });
  }
  return outcome({ ...empty, error: cause?.message ?? error.message });
}

/** The execution status a workflow's failure stands for. */
function endedAs(cause: Error | undefined): WorkflowExecutionStatusName {
  if (cause instanceof CancelledFailure) return 'CANCELLED';
  if (cause instanceof TerminatedFailure) return 'TERMINATED';
  if (cause instanceof TimeoutFailure) return 'TIMED_OUT';
  return 'FAILED';
}

/**
 * After a run started: detached, its ids; otherwise follows it to its end (Ctrl-C detaches) and prints how it ended,
 * the exit code saying how (`run` and `fork`).
 */
export async function followStarted(
  connected: Connected,
  handle: WorkflowHandleWithFirstExecutionRunId<typeof agentWorkflow>,
  options: {
    link: string | undefined;
    json: boolean;
    detach: boolean;
    prompt: boolean;
    signer?: OperatorSigner;
    /** The typing hint is on the screen already. */
    hinted?: boolean;
    /** Shows the run's live output while it is followed (not detached). */
    live?: (workflowId: string) => Promise<LiveOutput | undefined>;
  },
): Promise<number> {
  const { workflowId } = handle;
  const runId = handle.firstExecutionRunId;
  if (options.detach) {
    if (options.json) outJson({ workflowId, runId, status: 'running' });
    else log(`detached; follow it with: durable-agent watch ${workflowId}`);
    return EXIT.detached;
  }
  const abort = new AbortController();
  const onInterrupt = (): void => abort.abort();
  process.once('SIGINT', onInterrupt);
  connected.keepWorkerAlive();
  const keys = options.json
    ? undefined
    : startAttachedInput(connected, workflowId, onInterrupt, { hinted: options.hinted ?? false });
  try {
    const live = await options.live?.(workflowId);
    // A line being typed is not broken up by the model's text: live output waits until it is sent.
    if (keys && live) {
      keys.onTyping = (typing) => (typing ? live.hold() : live.release());
    }
    const { result, exitCode } = await followRun(handle, {
      signal: abort.signal,
      prompt: options.prompt,
      ...(keys ? { keys } : {}),
      ...(options.signer ? { signer: options.signer } : {}),
      ...(live ? { live } : {}),
    });
    if (options.json) {
      const { status, answer, steps, toolCalls, usage } = result;
      const structured = result.result !== undefined ? { result: result.result } : {};
      const error = result.error ? { error: result.error } : {};
      outJson({ workflowId, runId, status, answer, ...structured, steps, toolCalls, usage, ...error });
    } else {
      printRunEnd(result, options.link);
    }
    return exitCode;
  } catch (error) {
    if (!(error instanceof DetachedError)) throw error;
    log(`\ndetached; the run goes on. Follow it with: durable-agent watch ${workflowId}`);
    return EXIT.detached;
  } finally {
    keys?.stop();
    process.off('SIGINT', onInterrupt);
  }
}
