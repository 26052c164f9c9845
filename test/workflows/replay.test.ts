// Replays the saved histories of passing runs against the current workflow code: a change that would make a
// running workflow non-deterministic fails here before it reaches a worker.
import { workflowSpanSinks } from '../../src/telemetry/temporal-tracing.js';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { HISTORY_FORMAT } from '../../src/protocol/model.js';
import {
  checkReplay,
  formatMessage,
  INLINE_TRANSCRIPT_MESSAGE,
  recordedFormat,
} from '../../src/history/replay-check.js';
import { sharedBundle } from '../support/harness.js';
import { agentBundleOptions } from '../../src/worker.js';
import { historiesDir } from '../support/histories.js';

const ignore = (): void => undefined;
const quietBundleLogger = { log: ignore, trace: ignore, debug: ignore, info: ignore, warn: ignore, error: ignore };

describe('replay of saved histories', () => {
  // The bundle of a worker without a trace backend, and the one of a worker exporting traces (Temporal's tracing
  // interceptors in it, their sink registered): a run recorded by either replays on the other.
  it.each([
    ['without', false],
    ['with', true],
  ])(
    'replays every history under test/fixtures/histories %s the tracing interceptors',
    async (_label, tracing) => {
      const files = (await readdir(historiesDir)).filter((name) => name.endsWith('.json')).sort();
      expect(files.length).toBeGreaterThanOrEqual(3);
      const histories = await Promise.all(
        files.map(async (file) => ({
          // A sub-agent's id has a slash, which a file name cannot: its file says `~` instead.
          workflowId: file.replace(/\.json$/, '').replaceAll('~', '/'),
          history: historyFromJSON(JSON.parse(await readFile(`${historiesDir}${file}`, 'utf8'))),
        })),
      );
      const setup = tracing
        ? {
            workflowBundle: await bundleWorkflowCode({ ...agentBundleOptions({ tracing }), logger: quietBundleLogger }),
            sinks: workflowSpanSinks(),
          }
        : { workflowBundle: await sharedBundle() };
      const results = [];
      for await (const result of Worker.runReplayHistories(setup, histories)) results.push(result);
      expect(results).toHaveLength(files.length);
      for (const result of results)
        expect(result.error, `${result.workflowId}: ${String(result.error)}`).toBeUndefined();
      // Saved in the format this code writes: a format change regenerates them (UPDATE_HISTORIES=1).
      for (const { workflowId, history } of histories) expect(recordedFormat(history), workflowId).toBe(HISTORY_FORMAT);
    },
    120_000,
  );
});

describe('replay of a history in an older format', () => {
  it('says which format it was recorded in instead of pointing at an event', async () => {
    const json = JSON.parse(await readFile(`${historiesDir}demo.json`, 'utf8')) as {
      events: { activityTaskScheduledEventAttributes?: { input?: { payloads?: { data?: string }[] } } }[];
    };
    // The same run as an older version would have recorded it: its model requests carry no format.
    for (const event of json.events) {
      const payload = event.activityTaskScheduledEventAttributes?.input?.payloads?.[0];
      if (!payload?.data) continue;
      const decoded = JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) as { format?: number };
      if (decoded.format === undefined) continue;
      delete decoded.format;
      payload.data = Buffer.from(JSON.stringify(decoded)).toString('base64');
    }
    const history = historyFromJSON(json);
    expect(recordedFormat(history)).toBe(1);
    const incompatible = fileURLToPath(new URL('../fixtures/replay/incompatible-workflows.ts', import.meta.url));
    const bundle = await bundleWorkflowCode({ workflowsPath: incompatible, logger: quietBundleLogger });
    const check = await checkReplay(bundle, history, 'demo');
    expect(check.deterministic).toBe(false);
    if (check.deterministic) return;
    expect(check.divergence.message).toBe(formatMessage(1));
  }, 60_000);
});

describe('replay of a history recorded before the content store', () => {
  it('fails with a message that says why, not with a bare nondeterminism error', async () => {
    const file = fileURLToPath(new URL('../fixtures/legacy-histories/inline-transcript-demo.json', import.meta.url));
    const history = historyFromJSON(JSON.parse(await readFile(file, 'utf8')));
    const check = await checkReplay(await sharedBundle(), history, 'demo');
    expect(check.deterministic).toBe(false);
    if (check.deterministic) return;
    expect(check.divergence.message).toBe(INLINE_TRANSCRIPT_MESSAGE);
  });
});
