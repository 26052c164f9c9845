// Node: the options of the commands that talk to a running run: `say`, `interrupt`, `pause` and `resume`.
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
