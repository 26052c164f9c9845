// Node: following a run from this terminal: its progress, the approvals it asks for, and how it ended. Nothing here
// loads the Temporal client: `run` follows the run it started before the client is loaded (http-run-reader.ts).
import { createInterface } from 'node:readline/promises';
import { visibleLines, visibleText } from '../core/terminal-text.js';
import type { ApprovalDecision, PendingApproval } from '../protocol/approval.js';
import type { AgentStateView } from '../protocol/run-messages.js';
import type { agentWorkflow } from '../workflows/agent.js';
import type { AttachedInput } from './attached-input.js';
import { startAttachedInput } from './attached-input.js';
import { EXIT } from './exit-codes.js';
import { unseenFinalProgress } from './final-progress.js';
import type { LazyConnected } from './lazy-connected.js';
import type { LiveOutput } from './live-output.js';
import { operatorName } from './operator.js';
import type { OperatorSigner } from './operator-signing.js';
import { color, formatProgress, log, outJson, printRunEnd, shellWord, terminalSafe } from './output.js';
import { pollPause } from './poll-pause.js';
import type { FollowOutcome, RunReader } from './run-reader.js';

const POLL_MS = 300;

/** Answers a pending approval with the decision made at the terminal (`--ask prompt`). */
export type DecideApproval = (approval: PendingApproval, decision: ApprovalDecision) => Promise<void>;

/** Prints progress lines while the run works, then returns its result (also for failed or cancelled runs). */
export async function followRun(
  workflowId: string,
  reader: RunReader,
  options: {
    quiet?: boolean;
    signal?: AbortSignal;
    /** Asks at the terminal about each approval the run waits for. */
    decide?: DecideApproval;
    keys?: AttachedInput;
    live?: LiveOutput;
  } = {},
): Promise<FollowOutcome> {
  const { live, decide } = options;
  const printer = progressPrinter(workflowId, 0, { quiet: options.quiet ?? false, ...(live ? { live } : {}) });
  // Once the run has ended, a state query still under way is not waited for: a closed run answers a query only after
  // a worker has replayed its whole history. Its answer is dropped; the ending's last lines are printed instead.
  let ended = false;
  const readNew = async (final: boolean): Promise<void> => {
    const view = await reader.state(printer.seen);
    if (ended && !final) return;
    for (const approval of printer.show(view)) {
      if (!decide) continue;
      // While the question is on the screen, live output waits and the line typed answers it (not a steering message).
      live?.hold();
      options.keys?.suspend();
      await askAtTerminal(approval, decide, options.signal).finally(() => {
        options.keys?.resume();
        live?.release();
      });
    }
  };
  // One reader at a time (the poll and live output's catch-up both ask), so no line is printed twice.
  let reading: Promise<void> = Promise.resolve();
  const printNew = (final = false): Promise<void> =>
    (reading = reading.catch(() => undefined).then(() => readNew(final)));
  live?.beforeEachCall(() => printNew());
  const outcome = reader.ended();
  const settled = outcome.then(
    () => {
      ended = true;
    },
    () => {
      ended = true;
    },
  );
  try {
    while (!ended && !options.signal?.aborted) {
      // A query can fail while no worker is polling yet; the run is still going, so keep waiting.
      await Promise.race([printNew().catch(() => undefined), settled]);
      await pollPause(POLL_MS, settled);
    }
  } finally {
    await live?.stop();
  }
  try {
    if (options.signal?.aborted) throw new DetachedError();
    const end = await outcome;
    const unseen = unseenFinalProgress(end.result, printer.seen);
    if (unseen) printer.show({ progress: unseen, pendingApprovals: [] });
    else await printNew(true).catch(() => undefined);
    return end;
  } finally {
    // A query still under way is abandoned where the reader can (over HTTP), and waited for where it cannot: the SDK
    // retries a query on a timer that throws once its connection is closed.
    reader.close();
    await reading.catch(() => undefined);
  }
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
async function askAtTerminal(approval: PendingApproval, decide: DecideApproval, signal?: AbortSignal): Promise<void> {
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
    await decide(approval, decision).catch((error: unknown) =>
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

/** A run just started, and how its follower reads it. */
export interface StartedRun {
  workflowId: string;
  /** The id of its first run. */
  runId: string;
  reader: RunReader;
}

/**
 * After a run started: detached, its ids; otherwise follows it to its end (Ctrl-C detaches) and prints how it ended,
 * the exit code saying how (`run` and `fork`). The connection keeps the background worker alive meanwhile and is used
 * for what only the client does: typed messages and decisions at the prompt.
 */
export async function followStarted(
  connection: LazyConnected,
  run: StartedRun,
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
  const { workflowId, runId } = run;
  if (options.detach) {
    if (options.json) outJson({ workflowId, runId, status: 'running' });
    else log(`detached; follow it with: durable-agent watch ${workflowId}`);
    return EXIT.detached;
  }
  const abort = new AbortController();
  const onInterrupt = (): void => abort.abort();
  process.once('SIGINT', onInterrupt);
  connection.keepWorkerAlive();
  const keys = options.json
    ? undefined
    : startAttachedInput(() => connection.get(), workflowId, onInterrupt, { hinted: options.hinted ?? false });
  const { signer } = options;
  const decide: DecideApproval = async (approval, decision) => {
    const [{ client }, { approveToolCall }] = await Promise.all([
      connection.get(),
      import('../protocol/run-messages.js'),
    ]);
    const handle = client.workflow.getHandle<typeof agentWorkflow>(workflowId, undefined, {
      firstExecutionRunId: runId,
    });
    // The embedded worker takes only decisions signed with the operator's key, for this very call.
    await handle.executeUpdate(approveToolCall, {
      args: [signer ? signer.decision(workflowId, approval, decision) : decision],
    });
  };
  try {
    const live = await options.live?.(workflowId);
    // A line being typed is not broken up by the model's text: live output waits until it is sent.
    if (keys && live) {
      keys.onTyping = (typing) => (typing ? live.hold() : live.release());
    }
    const { result, exitCode } = await followRun(workflowId, run.reader, {
      signal: abort.signal,
      ...(options.prompt ? { decide } : {}),
      ...(keys ? { keys } : {}),
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
