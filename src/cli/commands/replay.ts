// Node: `replay`: whether the current workflow code replays a recorded run (by id or from a history file).
import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import type { Config } from '../../config.js';
import { workflowsPath } from '../../worker.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { historyIdentity } from '../../history/history-reader.js';
import { visibleLines, visibleText } from '../../core/terminal-text.js';
import { color, log, out, outJson, printBundleError } from '../output.js';
import { dataConverterFromEnv } from '../../store/data-converter.js';
import { storeFromEnv } from '../../store/store-from-env.js';
import { checkReplay } from '../../history/replay-check.js';
import { WorkflowBundleError, bundleWorkflows, quietRuntime } from '../../history/replay-worker.js';
import { stateDir } from '../../host/state-dir.js';
import { parseCommandLine } from '../option-table.js';
import { replayOptions } from '../options/runs.js';

/** `replay ID|FILE [--run-id R] [--workflows FILE] [--json]`: does the current workflow code reproduce a recorded run? */
export async function replayCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(replayOptions, argv);
  const source = positionals[0];
  if (!source || positionals.length > 1)
    throw new UsageError('replay needs a run id or a history file: durable-agent replay ID|FILE');
  const entry = values.workflows ? resolve(values.workflows) : workflowsPath;
  if (values.workflows && !(await isFile(entry))) throw new UsageError(`--workflows ${values.workflows}: no such file`);

  const recorded = await loadHistory(source, values['run-id'], config);
  if (!recorded) return EXIT.failed;
  const { history, workflowId, runId } = recorded;
  quietRuntime();
  let bundle;
  try {
    bundle = await bundleWorkflows(entry);
  } catch (error) {
    if (!(error instanceof WorkflowBundleError)) throw error;
    printBundleError(error);
    return EXIT.failed;
  }

  // Payloads Temporal External Storage kept out of history are read back from the same store the workers use.
  const dataConverter = dataConverterFromEnv(storeFromEnv(process.env, { stateDir: stateDir() }), process.env);
  const check = await checkReplay({ workflowBundle: bundle, dataConverter }, history, workflowId);
  if (values.json) {
    outJson({
      workflowId,
      runId,
      events: check.events,
      deterministic: check.deterministic,
      ...(check.deterministic ? {} : { divergence: check.divergence }),
    });
  }
  if (check.deterministic) {
    if (!values.json)
      out(`deterministic: the current code replays ${check.events} events of ${visibleText(workflowId)}\n`);
    return EXIT.finished;
  }
  const { divergence } = check;
  if (check.kind === 'failure') {
    log(
      color.red(
        `replay failed: a workflow task of ${visibleText(workflowId)} failed while replaying (not a determinism problem): ${visibleLines(divergence.message)}`,
      ),
    );
    return EXIT.failed;
  }
  const where = divergence.eventId ? ` at event ${divergence.eventId} (${visibleText(divergence.event ?? '')})` : '';
  log(color.red(`not deterministic: the current code diverges from the history of ${visibleText(workflowId)}${where}`));
  log(`  ${visibleLines(divergence.message)}`);
  log(
    'Runs recorded with the old code cannot go on with this code: guard the change with patched(), or let those runs finish first.',
  );
  return EXIT.failed;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isFile(),
    () => false,
  );
}

/** A history file (`temporal workflow show --output json`, historyToJSON) when `source` names one; otherwise a run id. */
async function loadHistory(
  source: string,
  runId: string | undefined,
  config: Config,
): Promise<{ history: History; workflowId: string; runId: string } | undefined> {
  if (await isFile(source)) {
    let history: History;
    try {
      history = historyFromJSON(JSON.parse(await readFile(source, 'utf8')));
    } catch (error) {
      throw new UsageError(`${source} is not a workflow history in JSON: ${(error as Error).message}`);
    }
    const identity = historyIdentity(history);
    return { history, workflowId: identity.workflowId || basename(source, '.json'), runId: identity.runId };
  }
  if (source.endsWith('.json')) throw new UsageError(`${source}: no such file`);
  const connected = await connect(config, { needWorker: false });
  try {
    const handle = connected.client.workflow.getHandle(source, runId);
    const description = await handle.describe();
    return { history: await handle.fetchHistory(), workflowId: source, runId: description.runId };
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    log(color.red(`error: no run ${visibleText(source)} (and no such file)`));
    return undefined;
  } finally {
    await connected.close();
  }
}
