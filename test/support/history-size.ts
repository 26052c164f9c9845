// Measures a run's history the way the server does: the protobuf size of each event. Shared by the long-run tests and
// `npm run bench`.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** The events of every run of a workflow id, oldest run first (a continue-as-new chain). */
export async function chainHistories(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const runs: { runId: string; started: number }[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    runs.push({ runId: execution.runId, started: execution.startTime.getTime() });
  }
  runs.sort((left, right) => left.started - right.started);
  const histories = [];
  for (const run of runs) {
    const history = await client.workflow.getHandle(workflowId, run.runId).fetchHistory();
    histories.push(history.events ?? []);
  }
  return histories;
}

export function eventBytes(event: HistoryEvent): number {
  return proto.temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
}

/**
 * History bytes of each step: the events from the step's model call being scheduled up to the next step's, within one
 * run. A run's first and last step also carry its start and its continue-as-new; they are reported apart (`runEdges`)
 * because they are paid once per run, not per step.
 */
export function bytesPerStep(histories: HistoryEvent[][]): { perStep: Map<number, number>; runEdges: number[] } {
  const perStep = new Map<number, number>();
  const runEdges: number[] = [];
  for (const events of histories) {
    let step: number | undefined;
    let bytes = 0;
    let edge = 0;
    const close = () => {
      if (step !== undefined) perStep.set(step, (perStep.get(step) ?? 0) + bytes);
      bytes = 0;
    };
    for (const event of events) {
      const scheduledStep = stepOf(event);
      if (scheduledStep !== undefined && scheduledStep !== step) {
        close();
        step = scheduledStep;
      }
      const size = eventBytes(event);
      if (event.workflowExecutionStartedEventAttributes || event.workflowExecutionContinuedAsNewEventAttributes)
        edge += size;
      else bytes += size;
    }
    close();
    runEdges.push(edge);
  }
  return { perStep, runEdges };
}

/** Mean bytes per step over steps [from, to], skipping steps that were not measured. */
export function meanBytes(perStep: Map<number, number>, from: number, to: number): number {
  const values = [];
  for (let step = from; step <= to; step++) {
    const value = perStep.get(step);
    if (value !== undefined) values.push(value);
  }
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}

function stepOf(event: HistoryEvent): number | undefined {
  const scheduled = event.activityTaskScheduledEventAttributes;
  if (scheduled?.activityType?.name !== 'callModel') return undefined;
  const payload = scheduled.input?.payloads?.[0];
  if (!payload?.data) return undefined;
  const request = JSON.parse(Buffer.from(payload.data).toString('utf8')) as { step?: number; purpose?: string };
  return request.purpose === 'compaction' ? undefined : request.step;
}
