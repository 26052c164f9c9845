// Node: `interrupt`: cancels what a running run is doing (the model call or the tool calls under way); the run goes on.
import type { Config } from '../../config.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { parseCommandLine } from '../option-table.js';
import { interruptOptions } from '../options/control.js';
import { ControlRefused, sendControl } from '../send-control.js';
import { visibleLines, visibleText } from '../../core/terminal-text.js';
import { color, log, out, outJson } from '../output.js';

/** `interrupt ID ["<message>"] [--id ID] [--json]`. */
export async function interruptCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(interruptOptions, argv);
  const [workflowId, ...words] = positionals;
  if (!workflowId) throw new UsageError('interrupt needs a run id: durable-agent interrupt ID ["<message>"]');
  const text = words.join(' ');
  const connected = await connect(config, { needWorker: true });
  try {
    connected.keepWorkerAlive();
    const receipt = await sendControl(connected, workflowId, 'interrupt', {
      ...(text.trim() ? { text } : {}),
      ...(values.id ? { id: values.id } : {}),
    });
    if (values.json) outJson({ workflowId, ...receipt });
    else {
      const what = receipt.interrupted ?? [];
      const done = receipt.duplicate
        ? 'already taken: not applied again'
        : what.length
          ? `interrupted ${what.map((label) => visibleText(label)).join(', ')}`
          : 'nothing was under way';
      const queued = receipt.queued
        ? `; the model reads ${text.trim() ? 'the message' : 'a note'} at its next step`
        : '';
      out(`${visibleText(workflowId)}: ${done}${queued}\n`);
    }
    return EXIT.finished;
  } catch (error) {
    if (!(error instanceof ControlRefused)) throw error;
    log(color.red(`error: ${visibleText(workflowId)} did not take the interrupt: ${visibleLines(error.reason)}`));
    return EXIT.failed;
  } finally {
    await connected.close();
  }
}
