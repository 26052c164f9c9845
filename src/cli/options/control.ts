// Node: the options of the commands that talk to a run: `say`, `interrupt`, `pause`, `resume` and `continue`.
import type { CommandOptions } from '../option-table.js';
import { liveOutputOptions } from './live.js';

const json = (what: string) => ({ type: 'boolean', default: false, help: what }) as const;
const id = {
  type: 'string',
  value: 'ID',
  help: 'name the message (letters, digits, "_.:-"): sending the same id again applies it once',
} as const;

/** `say`. */
export const sayOptions = {
  arguments: 'ID "<message>"',
  usage: 'inline',
  description: `Sends a message to a running run: the model reads it at the run's next step boundary (after the tool calls under
way), as a user message. Messages queue in the order the run takes them; one sent while the run waits for an
approval or a budget decision is read after that wait ends (the decision stays pending until it is given). The
message is recorded in the run's history (the Update "sendMessage"). Exits 0 when the run took it, 1 (with the
reason) when it refused it (the run has finished, the message is empty or too long).`,
  options: {
    id,
    json: json('print the receipt {workflowId, id, kind, status, queued, duplicate?}'),
  },
} as const satisfies CommandOptions;

/** `interrupt`. */
export const interruptOptions = {
  arguments: 'ID ["<message>"]',
  usage: 'inline',
  description: `Interrupts a running run: the model call under way is cancelled and its turn dropped, or the tool calls
under way are cancelled (a command's process group is killed; a file write, which is atomic, finishes or does not
happen) and answered with a CANCELLED envelope saying the operator interrupted them; calls of the step not started
yet do not start, an approval wait is rejected. Calls that finished keep their results. The run then goes on: at its
next step boundary the model reads a note of what was interrupted, followed by the message if one is given. The
run itself is not cancelled (that is "cancel"). With nothing under way the receipt says so and the message is
queued as with "say". Recorded in the run's history (the Update "interrupt"). Exits 0 when the run took it, 1 when
it refused it.`,
  options: {
    id,
    json: json('print the receipt {workflowId, id, kind, status, interrupted, queued?, duplicate?}'),
  },
} as const satisfies CommandOptions;

/** `pause`. */
export const pauseOptions = {
  arguments: 'ID ["<reason>"]',
  usage: 'inline',
  description: `Pauses a running run: it stops at its next step boundary (after the model call, tool calls or approval
wait under way) and waits there, holding no worker, shown as "paused" in status, list and the Web UI, until
"resume". Messages sent meanwhile queue and are read after the resume. Pausing a paused run changes nothing.
Recorded in the run's history (the Update "pause"). Exits 0 when the run took it, 1 when it refused it.`,
  options: {
    id,
    json: json('print the receipt {workflowId, id, kind, status, duplicate?}'),
  },
} as const satisfies CommandOptions;

/** `resume`. */
export const resumeOptions = {
  arguments: 'ID',
  usage: 'inline',
  description: `Resumes a paused run (or withdraws a pause that has not taken effect yet). A run that is not paused
refuses it, with its status: exit 1. Resending the same --id is answered as already taken (exit 0).`,
  options: {
    id,
    json: json('print the receipt {workflowId, id, kind, status, duplicate?}'),
  },
} as const satisfies CommandOptions;

/** `continue`. */
export const continueOptions = {
  arguments: 'ID "<request>"',
  usage: 'inline',
  description: `The next request of a task's conversation, with its transcript, read state and tool grants. When the task's run
is open (a session waiting for the next request, or a run still working) it takes the request as a message (the
Update "sendMessage"): a waiting session begins it at once, a working run reads it at its next step. When the
task's latest run is closed (completed, failed, or cancelled while it waited) the next run of the task starts
under the same id from the state that run ended with, the request as its next user message; it keeps the run's
model, workspace, mode, step limit (per request), budget and session setting. Follows the run until it has
answered (a session then waits again) or closed; exits as "run" does.`,
  options: {
    id,
    idle: {
      type: 'string',
      value: 'D',
      help: 'a run started anew is a session that waits D for the next request (45s, 30m, 12h, 7d)',
    },
    model: { type: 'string', value: 'M', help: "a run started anew calls model M (default: the task's)" },
    'base-url': {
      type: 'string',
      value: 'URL',
      help: "a run started anew calls the endpoint URL (default: the task's)",
    },
    json: json('print {workflowId, status, answer, requests, steps, toolCalls, usage} once answered'),
    detach: { type: 'boolean', default: false, help: 'send (or start) and return at once' },
    ...liveOutputOptions,
  },
} as const satisfies CommandOptions;
