// Node: the options of the commands that look at or act on runs: each one's table is its parsing, its checks of fixed
// choices, its `--help` and its line in the README's CLI reference. No configuration module: `status` and `list`
// answer from the embedded server's HTTP API without it.
import { RUN_STATUSES } from '../../history/run-status.js';
import type { CommandOptions } from '../option-table.js';
import { liveOutputOptions } from './live.js';

const json = (what: string) => ({ type: 'boolean', default: false, help: what }) as const;
const runId = (what: string) => ({ type: 'string', value: 'R', help: what }) as const;

/** `watch`. */
export const watchOptions = {
  arguments: 'ID',
  usage: 'inline',
  description: `Follows a run live, from its recent progress to its end; a model call under way is shown from its start.
Ctrl-C stops watching; the run goes on.`,
  options: {
    json: json("print one JSON object {workflowId, runId, …the run's result} when it ends"),
    ...liveOutputOptions,
  },
} as const satisfies CommandOptions;

/** `status`. */
export const statusOptions = {
  arguments: 'ID',
  usage: 'inline',
  description: `Prints a run's status, step, usage and answer: the task's current run, or with --run-id one run of its chain (one
that continued as new says "continued" and names the run it handed on to). A finished run is read from the result
it returned, so it shows no pending approvals and no breakers. A run with sub-agents (Task calls) lists them (segment,
state, step, cost, description, workflow id) and its tree's tokens and cost beside its own; its pending approvals
include its descendants'. A sub-agent's id (ROOT/task-1-0) shows whose sub-agent it is.`,
  options: {
    'run-id': runId("one run of the task's chain instead of its current run"),
    json: json(
      'print {workflowId, runId, status, step, profile?, answer?, result?, error?, continuedAs?, pendingApprovals, breakers, usage, totalUsage?, parent?, children}',
    ),
  },
} as const satisfies CommandOptions;

const DECISION_EXIT =
  'Exits 0 when the run accepted the decision, 1 (with the reason) when the call is unknown or already decided.';

/** `approve`. */
export const approveOptions = {
  arguments: 'ID CALL_ID',
  usage: 'inline',
  description: 'Approves a tool call waiting for a human decision (see "status ID" for the pending call ids).',
  options: {
    remember: {
      type: 'boolean',
      default: false,
      help: 'approve the call\'s approval key ("npm install", "curl example.com") for the rest of the task',
    },
    reason: { type: 'string', value: 'R', help: 'why, recorded with the decision' },
    json: json('print the outcome as one JSON object'),
  },
  epilogue: DECISION_EXIT,
} as const satisfies CommandOptions;

/** `deny`. */
export const denyOptions = {
  arguments: 'ID CALL_ID',
  usage: 'inline',
  description:
    "Rejects a tool call waiting for a human decision; the model sees the rejection (and the reason) as the call's result.",
  options: {
    reason: { type: 'string', value: 'R', help: 'why, recorded with the decision and shown to the model' },
    json: json('print the outcome as one JSON object'),
  },
  epilogue: DECISION_EXIT,
} as const satisfies CommandOptions;

/** `cancel`. */
export const cancelOptions = {
  arguments: 'ID',
  usage: 'inline',
  description: `Requests cancellation of a run and waits for it to close, then prints its final status.
Exits 0 once the run is closed, 1 if it is still open after the wait.`,
  options: {
    wait: {
      type: 'string',
      value: 'SECONDS',
      default: '60',
      help: 'how long to wait for the run to close (default 60)',
    },
    json: json('print {workflowId, runId, status}'),
  },
} as const satisfies CommandOptions;

/** `list`. */
export const listOptions = {
  arguments: '',
  usage: 'inline',
  description: `Lists agent runs, newest first, one row per task: its current run (after a reset or a continue-as-new, the run that
carries it on) with id, run id, status, step, cost, start and task. A sub-agent (a Task call's child workflow) is drawn
indented under the run that started it, by its segment (└ task-1-0); a run's cost includes its sub-agents', and
--pending-approvals finds a run while any of its descendants waits.`,
  options: {
    status: {
      type: 'string',
      value: 'S',
      choices: RUN_STATUSES,
      alsoAccepted: RUN_STATUSES.filter((status) => status.includes('_')).map((status) => status.replace(/_/g, '-')),
      help: `${RUN_STATUSES.join(' | ')} (continued: runs that handed their task on, one row each)`,
    },
    'pending-approvals': {
      type: 'boolean',
      default: false,
      help: 'only runs with tool calls waiting for a decision',
    },
    'min-cost': { type: 'string', value: 'USD', help: 'only runs that cost at least this much' },
    limit: { type: 'string', value: 'N', default: '20', help: 'at most N runs (default 20)' },
    json: json(
      'an array of {workflowId, runId, status, step, costUsd, pendingApprovals, startTime, closeTime, task, parentWorkflowId}',
    ),
  },
} as const satisfies CommandOptions;

/** `history`. */
export const historyOptions = {
  arguments: 'ID',
  usage: 'inline',
  description: `Shows a run step by step from its event history: each model call (model, tokens, duration, retries) and the tool
calls it asked for (summary, status or error code, duration, attempts). Without --run-id it reads the chain that led to
the current run: the runs it continued as new from, and where an operator reset it (the steps a reset abandoned stay
in the old run's own history, named on the reset line). A Task call's sub-agent is read from its own history and shown
indented under the call, with the child's wall time as the call's.`,
  options: {
    'run-id': runId("only this run of the task's chain"),
    depth: {
      type: 'string',
      value: 'N',
      help: 'nest sub-agents down to N levels (default: all; 0: this run only)',
    },
    json: json('print {workflowId, runId, status, resets?, steps: [{step, model: {...}, tools: [...]}], runIds}'),
  },
} as const satisfies CommandOptions;

/** `diff`. */
export const diffOptions = {
  arguments: 'ID',
  usage: 'inline',
  description: `Shows what a run did to its workspace's files, from the checkpoints its calls left (every call that may change files,
Bash included, is followed by one): as a unified diff, git's format. --step N: what step N changed; --from A --to B:
the files after step A against the files after step B (0: before the run's first change); neither: the whole run.
Paths .gitignore and the run's ignore list leave out are not recorded (docs/checkpoints.md).`,
  options: {
    step: { type: 'string', value: 'N', help: 'what step N changed' },
    from: { type: 'string', value: 'A', help: 'the files after step A (0: before the first change; default 0)' },
    to: { type: 'string', value: 'B', help: 'against the files after step B (default: the last step)' },
    'run-id': runId("only this run of the task's chain"),
    stat: {
      type: 'boolean',
      default: false,
      help: 'one line per file: A (added), M (modified) or D (deleted) and its path',
    },
    json: json('print {workflowId, from: {step, checkpoint}, to: {step, checkpoint}, files: [{path, change}]}'),
  },
} as const satisfies CommandOptions;

/** `rewind`. */
export const rewindOptions = {
  arguments: 'ID',
  usage: 'inline',
  description: `Sets a run's workspace back to its files after step N, from the checkpoints in its history; only the files that
differ are written or removed, and paths the run does not record (.gitignore, its ignore list) are left alone. The
files as they are now are checkpointed first, and the command prints how to bring them back (--to-checkpoint KEY).
It refuses while the run is running, and when files changed since the run's last checkpoint (an edit made outside the
run) unless --force. --conversation then forks the run from step N in the same workspace (as "fork").`,
  options: {
    'to-step': { type: 'string', value: 'N', help: 'the step whose files to go back to (0: before the first change)' },
    'to-checkpoint': {
      type: 'string',
      value: 'KEY',
      help: 'a checkpoint key instead, such as the one a rewind printed',
    },
    force: { type: 'boolean', default: false, help: "overwrite files changed since the run's last checkpoint" },
    conversation: { type: 'boolean', default: false, help: 'also fork the run from step N (its conversation rewound)' },
    detach: { type: 'boolean', default: false, help: 'with --conversation: as for "durable-agent run"' },
    'run-id': runId("rewind to this run of the task's chain"),
    json: json('print {workflowId, rewound, to, previous, written, removed, notRestored}'),
  },
} as const satisfies CommandOptions;

/** `replay`. */
export const replayOptions = {
  arguments: 'ID|FILE',
  usage: 'inline',
  description: `Re-executes the current workflow code against a recorded run (by id from the server, or a history JSON file as
written by "temporal workflow show --output json") to check that a code change is safe for runs in flight.
Exits 0 when the code reproduces the history; 1 with the event where it diverges when it does not.`,
  options: {
    'run-id': runId("replay this run of the task's chain (default: its current run)"),
    workflows: {
      type: 'string',
      value: 'FILE',
      help: "replay another workflows entry file instead of this installation's",
    },
    json: json('print {workflowId, runId, events, deterministic, divergence?}'),
  },
} as const satisfies CommandOptions;

/** `output`. */
export const outputOptions = {
  arguments: 'KEY',
  usage: 'inline',
  description: `Prints stored content (a transcript node, a tool result, a long answer) exactly as stored, by its key: sha256:<hex>
as shown in status, history and the Web UI (the bare 64 hex digits work too). The store is the one the workers use
(DURABLE_AGENT_STORE). On a terminal, control characters are shown as escapes (\\x1b) rather than acted on; piped or
redirected, the bytes are exact.
Exits 1 when the key is not in the store, 2 when KEY is not a key.`,
  options: { json: json('print {key, store, bytes, encoding: "utf8" | "base64", content}') },
} as const satisfies CommandOptions;

/** `gc`. */
export const gcOptions = {
  arguments: '',
  usage: 'inline',
  description: `Deletes stored content that no open run can reach and that was last written (or re-used) longer ago than
--older-than. Reachable means referred to by an open agent run (its storeRoots query) or by content that is. If an
open run does not answer (no worker polling its task queue), nothing is deleted. On S3 a re-used object's time is
refreshed at most once a day, so keep --older-than well above 1d there. It also deletes live output's files of model
calls that ended over an hour ago (the worker sweeps them too).`,
  options: {
    'older-than': {
      type: 'string',
      value: '30d',
      default: '30d',
      help: 'an age of at least 1h: 30d, 12h, 90m (default 30d)',
    },
    'dry-run': { type: 'boolean', default: false, help: 'report what would be deleted, delete nothing' },
    json: json(
      'print one object {status, store, stored, reachable, recent, deleted, deletedKeys, kept, missing, liveFilesDeleted, …}',
    ),
  },
} as const satisfies CommandOptions;
