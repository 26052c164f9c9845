// The run's metrics as increments between snapshots: each token, step and micro-dollar once, a breaker counted when
// its state changes (not when it is made), approvals counted when asked and when decided with their wait, and the
// run's ending once.
import { describe, expect, it } from 'vitest';
import { emptyRunMetricSnapshot, metricIncrements, RUN_METRICS } from '../../src/core/run/run-metrics.js';
import type { RunMetricSnapshot } from '../../src/core/run/run-metrics.js';

const input = { selection: { provider: 'openai', model: 'gpt-x' } };
const snapshot = (changes: Partial<RunMetricSnapshot>): RunMetricSnapshot => ({
  ...emptyRunMetricSnapshot(),
  ...changes,
});

describe('run metrics', () => {
  it('counts steps, tokens and cost once, as differences', () => {
    const first = snapshot({ step: 1, promptTokens: 100, completionTokens: 10, costMicroUsd: 250 });
    const second = snapshot({ step: 2, promptTokens: 300, completionTokens: 30, costMicroUsd: 700 });
    const call = { provider: 'openai', model: 'gpt-x' };
    expect(metricIncrements(first, second, input, 'gpt-x', 0)).toEqual([
      { name: RUN_METRICS.steps, value: 1, tags: { model: 'gpt-x' } },
      { name: RUN_METRICS.tokens, value: 200, tags: { ...call, kind: 'input' } },
      { name: RUN_METRICS.tokens, value: 20, tags: { ...call, kind: 'output' } },
      { name: RUN_METRICS.costMicroUsd, value: 450, tags: call },
    ]);
    expect(metricIncrements(second, second, input, 'gpt-x', 0)).toEqual([]);
  });

  it('counts a breaker when it opens or closes again, not when it is made', () => {
    const made = snapshot({ breakers: { Bash: 'CLOSED' } });
    const open = snapshot({ breakers: { Bash: 'OPEN' } });
    expect(metricIncrements(emptyRunMetricSnapshot(), made, input, undefined, 0)).toEqual([]);
    expect(metricIncrements(made, open, input, undefined, 0)).toEqual([
      { name: RUN_METRICS.breakerTransitions, value: 1, tags: { tool: 'Bash', to: 'open' } },
    ]);
  });

  it('counts an approval when asked, and when decided with how long it waited', () => {
    const asked = snapshot({ approvals: { rm: 1_000 } });
    expect(metricIncrements(emptyRunMetricSnapshot(), asked, input, undefined, 1_000)).toEqual([
      { name: RUN_METRICS.approvalsRequested, value: 1, tags: {} },
    ]);
    expect(metricIncrements(asked, emptyRunMetricSnapshot(), input, undefined, 4_500)).toEqual([
      { name: RUN_METRICS.approvalsDecided, value: 1, tags: {} },
      { name: RUN_METRICS.approvalWaitMs, value: 3_500, tags: {} },
    ]);
  });

  it('counts the ending once, by status, and a continuation not at all', () => {
    const done = snapshot({ status: 'completed' });
    expect(metricIncrements(emptyRunMetricSnapshot(), done, input, undefined, 0)).toEqual([
      { name: RUN_METRICS.runs, value: 1, tags: { status: 'completed' } },
    ]);
    expect(metricIncrements(done, done, input, undefined, 0)).toEqual([]);
    expect(metricIncrements(emptyRunMetricSnapshot(), snapshot({ status: 'continued' }), input, undefined, 0)).toEqual(
      [],
    );
  });
});
