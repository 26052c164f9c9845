// Node: `say`: a steering message for a running run, read at its next step boundary.
import type { Config } from '../../config.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { parseCommandLine } from '../option-table.js';
import { sayOptions } from '../options/control.js';
import { ControlRefused, sendControl } from '../send-control.js';
import { visibleLines, visibleText } from '../../core/terminal-text.js';
import { color, log, out, outJson } from '../output.js';

/** `say ID "<message>" [--id ID] [--json]`. */
export async function sayCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(sayOptions, argv);
  const [workflowId, ...words] = positionals;
  const text = words.join(' ');
  if (!workflowId || !text.trim())
    throw new UsageError('say needs a run id and a message: durable-agent say ID "<message>"');
  // A worker has to run the Update's validator and handler; the embedded one is started if need be.
  const connected = await connect(config, { needWorker: true });
  try {
    connected.keepWorkerAlive();
    const receipt = await sendControl(connected, workflowId, 'message', {
      text,
      ...(values.id ? { id: values.id } : {}),
    });
    if (values.json) outJson({ workflowId, ...receipt });
    else {
      const again = receipt.duplicate ? ' (already taken: not applied again)' : '';
      out(
        `message ${visibleText(receipt.id)} queued for ${visibleText(workflowId)}${again}: read at its next step (${receipt.queued ?? 1} waiting)\n`,
      );
    }
    return EXIT.finished;
  } catch (error) {
    if (!(error instanceof ControlRefused)) throw error;
    log(color.red(`error: ${visibleText(workflowId)} did not take the message: ${visibleLines(error.reason)}`));
    return EXIT.failed;
  } finally {
    await connected.close();
  }
}
