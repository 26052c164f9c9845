// Node: the options of the commands that talk to a running run: `say` (and, beside it, the other control messages).
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
