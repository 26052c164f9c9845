// Node: `continue`: the next request of a task's conversation (cli/continue-task).
import type { Config } from '../../config.js';
import { continueTask } from '../continue-task.js';
import { parseIdle } from '../run-input.js';
import { UsageError } from '../exit-codes.js';
import { parseCommandLine } from '../option-table.js';
import { continueOptions } from '../options/control.js';
import { wantsLiveOutput } from '../live-output.js';

/** `continue ID "<request>" [--id ID] [--idle D] [--model M] [--base-url URL] [--json] [--detach]`. */
export async function continueCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(continueOptions, argv);
  const [workflowId, ...words] = positionals;
  const text = words.join(' ');
  if (!workflowId || !text.trim())
    throw new UsageError('continue needs a run id and a request: durable-agent continue ID "<request>"');
  return await continueTask(config, workflowId, text, {
    ...(values.id ? { id: values.id } : {}),
    ...(values.idle !== undefined ? { idleMs: parseIdle(values.idle) } : {}),
    ...(values.model ? { model: values.model } : {}),
    ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
    detach: values.detach,
    stream: wantsLiveOutput(values),
    json: values.json,
  });
}
