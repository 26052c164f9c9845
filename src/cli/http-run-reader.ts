// Node: a run read over the embedded server's HTTP API (dev-server/http-api.ts), so `run` follows the run it started
// without waiting for the Temporal client: the state query as JSON, and the end as a long poll of the close event.
// What the API cannot read (a payload in the content store, an answer of an unknown shape, an API that stopped
// answering) is read through the SDK's handle from then on.
import type { HttpApi } from '../dev-server/http-api.js';
import { HttpApiUnavailable, STATE_QUERY, queryWorkflow, runEnd } from '../dev-server/http-api.js';
import type { AgentStateView } from '../protocol/run-messages.js';
import type { FollowOutcome, RunReader } from './run-reader.js';
import { outcomeOf } from './run-reader.js';

/** Reads the workflow `workflowId` whose first run is `firstRunId`; `handleReader` makes the reader to fall back on. */
export function httpRunReader(
  api: HttpApi,
  workflowId: string,
  firstRunId: string,
  handleReader: () => Promise<RunReader>,
): RunReader {
  const abandon = new AbortController();
  let fallback: Promise<RunReader> | undefined;
  const either = async <T>(overHttp: () => Promise<T>, overHandle: (reader: RunReader) => Promise<T>): Promise<T> => {
    if (!fallback) {
      try {
        return await overHttp();
      } catch (error) {
        if (!(error instanceof HttpApiUnavailable) || abandon.signal.aborted) throw error;
        fallback ??= handleReader();
      }
    }
    return await overHandle(await fallback);
  };

  const state = async (afterSeq: number): Promise<AgentStateView> =>
    stateView(await queryWorkflow(api, workflowId, undefined, STATE_QUERY, [afterSeq], abandon.signal));

  const ended = async (): Promise<FollowOutcome> => {
    let runId = firstRunId;
    for (;;) {
      const end = await runEnd(api, workflowId, runId, { wait: true, signal: abandon.signal });
      if (!end) throw new HttpApiUnavailable(`the server has no run ${runId} of ${workflowId}`);
      if (end.kind === 'continued' || ((end.kind === 'failed' || end.kind === 'timed-out') && end.nextRunId)) {
        runId = end.nextRunId!;
        continue;
      }
      return await outcomeOf(end);
    }
  };

  let ending: Promise<FollowOutcome> | undefined;
  return {
    state: (afterSeq) =>
      either(
        () => state(afterSeq),
        (reader) => reader.state(afterSeq),
      ),
    ended: () => (ending ??= either(ended, (reader) => reader.ended())),
    close: () => {
      abandon.abort();
      void fallback?.then(
        (reader) => reader.close(),
        () => undefined,
      );
    },
  };
}

/** The query's answer, checked to be a state view before it is printed from. */
function stateView(answer: unknown): AgentStateView {
  const view = answer as Partial<AgentStateView> | undefined;
  if (!Array.isArray(view?.progress) || !Array.isArray(view.pendingApprovals))
    throw new HttpApiUnavailable('a state query answer of an unknown shape');
  return view as AgentStateView;
}
