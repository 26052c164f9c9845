// Workflow: emits the run's metrics (core/run/run-metrics) through the SDK's workflow meter, which the worker exports
// with its own metrics and never calls while a history is replayed, so a step counts once however often it replays.
import { metricMeter } from '@temporalio/workflow';
import type { MetricCounter, MetricHistogram } from '@temporalio/common';
import type { PendingApproval } from '../protocol/approval.js';
import type { AgentInput, AgentState } from '../core/state.js';
import type { RunMetricName } from '../core/run/run-metrics.js';
import { RUN_METRICS, metricIncrements, runMetricSnapshot } from '../core/run/run-metrics.js';

/** Emits what changed since the last call (the first call: since the run, or its continuation, started). */
export function createRunMetrics(
  state: AgentState,
  input: AgentInput,
  pending: readonly PendingApproval[],
): (pending: readonly PendingApproval[]) => void {
  let last = runMetricSnapshot(state, pending);
  const instruments = new Map<RunMetricName, MetricCounter | MetricHistogram>();
  const instrument = (name: RunMetricName): MetricCounter | MetricHistogram => {
    let found = instruments.get(name);
    if (!found) {
      found =
        name === RUN_METRICS.approvalWaitMs
          ? metricMeter.createHistogram(name, 'int', 'ms', 'How long an approval waited for its decision')
          : metricMeter.createCounter(name);
      instruments.set(name, found);
    }
    return found;
  };
  return (pending) => {
    const next = runMetricSnapshot(state, pending);
    const model = state.model ?? input.selection.model;
    for (const increment of metricIncrements(last, next, input, model, Date.now())) {
      const meter = instrument(increment.name);
      if ('add' in meter) meter.add(increment.value, increment.tags);
      else meter.record(increment.value, increment.tags);
    }
    last = next;
  };
}
