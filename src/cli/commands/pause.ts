// Node: `pause` and `resume`: a run stops at its next step boundary and waits, holding no worker, until resumed.
import type { Config } from '../../config.js';
import type { ControlKind } from '../../protocol/run-control.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { parseCommandLine } from '../option-table.js';
import { pauseOptions, resumeOptions } from '../options/control.js';
import { ControlRefused, sendControl } from '../send-control.js';
import { visibleLines, visibleText } from '../../core/terminal-text.js';
import { color, log, out, outJson } from '../output.js';

/** `pause ID ["<reason>"] [--id ID] [--json]`. */
export async function pauseCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(pauseOptions, argv);
  const [workflowId, ...words] = positionals;
  if (!workflowId) throw new UsageError('pause needs a run id: durable-agent pause ID ["<reason>"]');
  return send(config, workflowId, 'pause', { text: words.join(' '), ...values });
}

/** `resume ID [--id ID] [--json]`. */
export async function resumeCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(resumeOptions, argv);
  const [workflowId, extra] = positionals;
  if (!workflowId || extra !== undefined) throw new UsageError('resume needs a run id: durable-agent resume ID');
  return send(config, workflowId, 'resume', values);
}

async function send(
  config: Config,
  workflowId: string,
  kind: Extract<ControlKind, 'pause' | 'resume'>,
  options: { text?: string; id?: string | undefined; json?: boolean },
): Promise<number> {
  const connected = await connect(config, { needWorker: true });
  try {
    connected.keepWorkerAlive();
    const receipt = await sendControl(connected, workflowId, kind, {
      ...(options.text?.trim() ? { text: options.text } : {}),
      ...(options.id ? { id: options.id } : {}),
    });
    const id = visibleText(workflowId);
    if (options.json) outJson({ workflowId, ...receipt });
    else if (receipt.duplicate)
      out(`${id}: ${kind} ${visibleText(receipt.id)} already taken: not applied again (${receipt.status})\n`);
    else if (kind === 'resume') out(`${id}: resumed (${receipt.status})\n`);
    else if (receipt.status === 'paused') out(`${id}: paused; resume with durable-agent resume ${id}\n`);
    else out(`${id}: pausing at its next step boundary; resume with durable-agent resume ${id}\n`);
    return EXIT.finished;
  } catch (error) {
    if (!(error instanceof ControlRefused)) throw error;
    log(color.red(`error: ${visibleText(workflowId)} did not take the ${kind}: ${visibleLines(error.reason)}`));
    return EXIT.failed;
  } finally {
    await connected.close();
  }
}
