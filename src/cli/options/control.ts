// Node: the options of the commands that talk to a running run: `say`, `continue` (and, beside them, the other control
// messages).
import type { CommandOptions } from '../option-table.js';

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
  },
} as const satisfies CommandOptions;
