import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BREAKER_CONFIG,
  advanceBreaker,
  breakerGate,
  circuitOpenText,
  classifyOutcome,
  closedBreaker,
  openTools,
  recordOutcome,
  releaseTrial,
  resolveBreakerConfig,
} from '../../src/core/breaker.js';
import type { BreakerState } from '../../src/core/breaker.js';
import { errorEnvelope, okEnvelope } from '../../src/protocol/envelope.js';
import type { ErrorCode } from '../../src/protocol/envelope.js';

const config = { threshold: 3, recovery_ms: 10_000, countAllErrors: false };
const context = { tool_call_id: 'call_1', cwd: '.', params_input: {} };

function open(openedAt: number, failures = 3): BreakerState {
  return { state: 'OPEN', failures, opened_at: openedAt, trial_in_flight: false, last_error: 'disk on fire' };
}

function halfOpen(trialInFlight: boolean): BreakerState {
  return { state: 'HALF_OPEN', failures: 3, opened_at: 0, trial_in_flight: trialInFlight, last_error: 'disk on fire' };
}

function failTimes(times: number, start: BreakerState | undefined = undefined): BreakerState | undefined {
  let state = start;
  for (let index = 0; index < times; index++) {
    state = recordOutcome(state, 'counted_failure', 1000 + index, config, `failure ${index + 1}`).next;
  }
  return state;
}

describe('config', () => {
  it('fills the docs/tools.md §10 defaults', () => {
    expect(resolveBreakerConfig()).toEqual({ threshold: 3, recovery_ms: 300_000, countAllErrors: false });
    expect(DEFAULT_BREAKER_CONFIG.threshold).toBe(3);
  });

  it('clamps threshold to at least 1 and recovery_ms to at least 1000', () => {
    expect(resolveBreakerConfig({ threshold: 0, recovery_ms: 5 })).toMatchObject({ threshold: 1, recovery_ms: 1000 });
    expect(resolveBreakerConfig({ threshold: -4, recovery_ms: -1 })).toMatchObject({ threshold: 1, recovery_ms: 1000 });
    expect(resolveBreakerConfig({ threshold: Number.NaN })).toMatchObject({ threshold: 3 });
  });

  it('applies the threshold clamp when transitioning: threshold 0 opens on the first failure', () => {
    const { next, transition } = recordOutcome(undefined, 'counted_failure', 50, { threshold: 0 });
    expect(next.state).toBe('OPEN');
    expect(transition).toEqual({ from: 'CLOSED', to: 'OPEN' });
  });

  it('applies the recovery clamp in the gate: 10 ms recovery still waits 1000 ms', () => {
    const tiny = { recovery_ms: 10 };
    expect(breakerGate(open(0), 999, tiny).pass).toBe(false);
    expect(breakerGate(open(0), 1000, tiny).pass).toBe(true);
  });
});

describe('gate', () => {
  it('passes a tool with no breaker yet, returning a fresh CLOSED state', () => {
    const result = breakerGate(undefined, 0, config);
    expect(result).toEqual({ pass: true, next: closedBreaker() });
  });

  it('passes CLOSED without changing it', () => {
    const state: BreakerState = { state: 'CLOSED', failures: 2, trial_in_flight: false, last_error: 'x' };
    const result = breakerGate(state, 5, config);
    expect(result.pass).toBe(true);
    expect(result.next).toEqual(state);
    expect(result.next).not.toBe(state);
    expect(result.transition).toBeUndefined();
  });

  it('rejects OPEN before recovery with retry_after_ms, failures and last_error', () => {
    const result = breakerGate(open(1000), 4000, config);
    expect(result.pass).toBe(false);
    if (result.pass) return;
    expect(result.details).toEqual({ retry_after_ms: 7000, failures: 3, last_error: 'disk on fire' });
    expect(result.next.state).toBe('OPEN');
    expect(result.transition).toBeUndefined();
  });

  it('reports last_error as null when none was recorded', () => {
    const state: BreakerState = { state: 'OPEN', failures: 3, opened_at: 0, trial_in_flight: false };
    const result = breakerGate(state, 1, config);
    expect(!result.pass && result.details.last_error).toBeNull();
  });

  it('still rejects one millisecond before the recovery boundary', () => {
    const result = breakerGate(open(1000), 10_999, config);
    expect(result.pass).toBe(false);
    expect(!result.pass && result.details.retry_after_ms).toBe(1);
  });

  it('moves OPEN to HALF_OPEN exactly at now - opened_at == recovery_ms and admits the trial', () => {
    const result = breakerGate(open(1000), 11_000, config);
    expect(result.pass).toBe(true);
    expect(result.transition).toEqual({ from: 'OPEN', to: 'HALF_OPEN' });
    expect(result.next).toMatchObject({ state: 'HALF_OPEN', trial_in_flight: true, failures: 3 });
  });

  it('admits exactly one HALF_OPEN trial; the second caller gets CIRCUIT_OPEN details', () => {
    const first = breakerGate(halfOpen(false), 20_000, config);
    expect(first.pass).toBe(true);
    expect(first.transition).toBeUndefined();
    expect(first.next.trial_in_flight).toBe(true);

    const second = breakerGate(first.next, 20_001, config);
    expect(second.pass).toBe(false);
    if (second.pass) return;
    expect(second.details).toEqual({ retry_after_ms: 0, failures: 3, last_error: 'disk on fire' });
    expect(second.next).toEqual(first.next);
  });

  it('admits one trial when the recovery time has passed and rejects the next call in the same turn', () => {
    const first = breakerGate(open(0), 50_000, config);
    const second = breakerGate(first.next, 50_000, config);
    expect([first.pass, second.pass]).toEqual([true, false]);
    expect(second.transition).toBeUndefined();
  });

  it('treats an OPEN breaker without opened_at as due for a trial', () => {
    const state: BreakerState = { state: 'OPEN', failures: 3, trial_in_flight: false };
    expect(breakerGate(state, 0, config).pass).toBe(true);
  });

  it('never mutates its input', () => {
    const state = open(0);
    const snapshot = structuredClone(state);
    breakerGate(state, 50_000, config);
    expect(state).toEqual(snapshot);
  });
});

describe('transitions on outcome (§10 table)', () => {
  it('CLOSED + success resets failures to 0', () => {
    const state: BreakerState = { state: 'CLOSED', failures: 2, trial_in_flight: false, last_error: 'boom' };
    const { next, transition } = recordOutcome(state, 'success', 1, config);
    expect(next).toEqual({ state: 'CLOSED', failures: 0, trial_in_flight: false });
    expect(transition).toBeUndefined();
  });

  it('CLOSED + counted failure below the threshold increments failures and keeps the error', () => {
    const { next, transition } = recordOutcome(closedBreaker(), 'counted_failure', 1, config, 'ENOSPC');
    expect(next).toEqual({ state: 'CLOSED', failures: 1, trial_in_flight: false, last_error: 'ENOSPC' });
    expect(transition).toBeUndefined();
  });

  it('CLOSED + counted failure reaching the threshold opens the circuit at now', () => {
    const twice = failTimes(2);
    const { next, transition } = recordOutcome(twice, 'counted_failure', 7777, config, 'third');
    expect(next).toEqual({ state: 'OPEN', failures: 3, opened_at: 7777, trial_in_flight: false, last_error: 'third' });
    expect(transition).toEqual({ from: 'CLOSED', to: 'OPEN' });
  });

  it('CLOSED + neutral changes nothing', () => {
    const state: BreakerState = { state: 'CLOSED', failures: 2, trial_in_flight: false, last_error: 'boom' };
    const { next, transition } = recordOutcome(state, 'neutral', 1, config);
    expect(next).toEqual(state);
    expect(transition).toBeUndefined();
  });

  it('neutral outcomes between counted failures do not reset the count', () => {
    let state = failTimes(2);
    state = recordOutcome(state, 'neutral', 5, config).next;
    state = recordOutcome(state, 'neutral', 6, config).next;
    expect(state.failures).toBe(2);
    expect(recordOutcome(state, 'counted_failure', 7, config).next.state).toBe('OPEN');
  });

  it('a success between failures resets the count, so the circuit needs threshold consecutive failures', () => {
    let state = failTimes(2);
    state = recordOutcome(state, 'success', 5, config).next;
    state = failTimes(2, state);
    expect(state).toMatchObject({ state: 'CLOSED', failures: 2 });
  });

  it('HALF_OPEN + success closes with failures 0', () => {
    const { next, transition } = recordOutcome(halfOpen(true), 'success', 30_000, config);
    expect(next).toEqual({ state: 'CLOSED', failures: 0, trial_in_flight: false });
    expect(transition).toEqual({ from: 'HALF_OPEN', to: 'CLOSED' });
  });

  it('HALF_OPEN + counted failure reopens and restarts the timer', () => {
    const { next, transition } = recordOutcome(halfOpen(true), 'counted_failure', 30_000, config, 'again');
    expect(next).toMatchObject({ state: 'OPEN', opened_at: 30_000, trial_in_flight: false, last_error: 'again' });
    expect(transition).toEqual({ from: 'HALF_OPEN', to: 'OPEN' });
    // The new timer counts from the failed trial, not from the first opening at 0.
    expect(breakerGate(next, 39_999, config).pass).toBe(false);
    const retry = breakerGate(next, 35_000, config);
    expect(!retry.pass && retry.details.retry_after_ms).toBe(5000);
    expect(breakerGate(next, 40_000, config).pass).toBe(true);
  });

  it('HALF_OPEN + neutral stays HALF_OPEN with the trial slot free', () => {
    const { next, transition } = recordOutcome(halfOpen(true), 'neutral', 30_000, config);
    expect(next).toMatchObject({ state: 'HALF_OPEN', trial_in_flight: false, failures: 3 });
    expect(transition).toBeUndefined();
    expect(breakerGate(next, 30_001, config).pass).toBe(true);
  });

  it('an outcome arriving while OPEN only counts a failure and keeps the timer', () => {
    const counted = recordOutcome(open(100), 'counted_failure', 5000, config, 'late');
    expect(counted.next).toMatchObject({ state: 'OPEN', failures: 4, opened_at: 100, last_error: 'late' });
    expect(counted.transition).toBeUndefined();
    expect(recordOutcome(open(100), 'success', 5000, config).next).toEqual(open(100));
    expect(recordOutcome(open(100), 'neutral', 5000, config).next).toEqual(open(100));
  });

  it('starts from CLOSED when a tool has no breaker yet', () => {
    expect(recordOutcome(undefined, 'counted_failure', 1, config, 'x').next).toMatchObject({
      state: 'CLOSED',
      failures: 1,
    });
  });

  it('full cycle: three failures open, the trial after recovery succeeds and closes', () => {
    const opened = failTimes(3)!;
    expect(opened.state).toBe('OPEN');
    const gate = breakerGate(opened, opened.opened_at! + 10_000, config);
    expect(gate.pass).toBe(true);
    const closed = recordOutcome(gate.next, 'success', opened.opened_at! + 10_500, config);
    expect(closed.next.state).toBe('CLOSED');
  });
});

describe('releaseTrial', () => {
  it('frees the HALF_OPEN trial slot of a call that did not run', () => {
    const admitted = breakerGate(halfOpen(false), 1, config).next;
    const released = releaseTrial(admitted);
    expect(released).toMatchObject({ state: 'HALF_OPEN', trial_in_flight: false });
    expect(breakerGate(released, 2, config).pass).toBe(true);
  });

  it('leaves CLOSED and OPEN breakers as they are', () => {
    expect(releaseTrial(open(5))).toEqual(open(5));
    expect(releaseTrial(undefined)).toEqual(closedBreaker());
  });
});

describe('classifyOutcome', () => {
  const failed = (code: ErrorCode) => errorEnvelope({ code, message: 'nope', context });

  it('success and partial are successes', () => {
    expect(classifyOutcome(okEnvelope({ text: 'ok', context }), { ranTool: true })).toBe('success');
    expect(classifyOutcome(okEnvelope({ status: 'partial', text: 'exit 1', context }), { ranTool: true })).toBe(
      'success',
    );
  });

  it.each<ErrorCode>([
    'TIMEOUT',
    'EXECUTION_ERROR',
    'INTERNAL_ERROR',
    'MCP_EXECUTION_ERROR',
    'MCP_NETWORK_ERROR',
    'MCP_TIMEOUT',
  ])('%s is a counted failure', (code) => {
    expect(classifyOutcome(failed(code), { ranTool: true })).toBe('counted_failure');
  });

  it.each<ErrorCode>([
    'INVALID_PARAM',
    'NOT_FOUND',
    'CONFLICT',
    'PERMISSION_DENIED',
    'ACCESS_DENIED',
    'CANCELLED',
    'MCP_PARAM_ERROR',
  ])('%s is neutral', (code) => {
    expect(classifyOutcome(failed(code), { ranTool: true })).toBe('neutral');
  });

  it('countAllErrors counts every error a tool returns', () => {
    expect(classifyOutcome(failed('NOT_FOUND'), { ranTool: true, countAllErrors: true })).toBe('counted_failure');
  });

  it('calls rejected before run are neutral, whatever the code and setting', () => {
    expect(classifyOutcome(failed('INTERNAL_ERROR'), { ranTool: false })).toBe('neutral');
    expect(classifyOutcome(failed('TIMEOUT'), { ranTool: false, countAllErrors: true })).toBe('neutral');
  });
});

describe('openTools', () => {
  it('lists OPEN tools still inside their recovery time, not HALF_OPEN or CLOSED ones', () => {
    const breakers: Record<string, BreakerState> = {
      Bash: open(1000),
      Grep: open(0),
      ReadFile: halfOpen(false),
      Glob: closedBreaker(),
    };
    expect(openTools(breakers, 10_000, config)).toEqual(new Set(['Bash']));
  });

  it('drops a tool from the set exactly when its recovery time elapses', () => {
    const breakers = { Bash: open(1000) };
    expect(openTools(breakers, 10_999, config).has('Bash')).toBe(true);
    expect(openTools(breakers, 11_000, config).has('Bash')).toBe(false);
  });

  it('uses the default recovery time when no config is given', () => {
    expect(openTools({ Bash: open(0) }, 299_999).has('Bash')).toBe(true);
    expect(openTools({ Bash: open(0) }, 300_000).has('Bash')).toBe(false);
  });

  it('accepts no breakers at all', () => {
    expect(openTools(undefined, 0).size).toBe(0);
  });

  it('agrees with advanceBreaker on when a tool comes back', () => {
    const moved = advanceBreaker(open(0), 10_000, config);
    expect(moved.transition).toEqual({ from: 'OPEN', to: 'HALF_OPEN' });
    expect(moved.next.trial_in_flight).toBe(false);
    expect(advanceBreaker(open(0), 9_999, config).transition).toBeUndefined();
  });
});

describe('circuitOpenText', () => {
  it('is the §10 text', () => {
    expect(circuitOpenText('Bash', 3)).toBe("Tool 'Bash' is temporarily disabled after 3 consecutive failures.");
  });
});
