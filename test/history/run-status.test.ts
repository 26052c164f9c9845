// One decision of a run's status for every command: the execution status the server reports, refined by what the
// workflow reported while it ran, and the exit code and list filter that go with each status.
import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeOf } from '../../src/cli/exit-codes.js';
import { RUN_STATUSES, isRunStatus, runStatusOf, visibilityClause } from '../../src/history/run-status.js';

describe('runStatusOf', () => {
  it('an open run is running, or waiting for approval when it says so', () => {
    expect(runStatusOf('RUNNING')).toBe('running');
    expect(runStatusOf('RUNNING', 'waiting_approval')).toBe('waiting_approval');
    // A run that continued as new handed its task on, whatever it last reported.
    expect(runStatusOf('CONTINUED_AS_NEW', 'waiting_approval')).toBe('continued');
    // What a workflow reports is not taken for an ending the server has not seen.
    expect(runStatusOf('RUNNING', 'completed')).toBe('running');
    expect(runStatusOf('RUNNING', 'cancelled')).toBe('running');
  });

  it('a closed run ends as the server says; a completed run that reported failure failed', () => {
    expect(runStatusOf('COMPLETED')).toBe('completed');
    expect(runStatusOf('COMPLETED', 'failed')).toBe('failed');
    expect(runStatusOf('COMPLETED', 'waiting_approval')).toBe('completed');
    expect(runStatusOf('FAILED', 'running')).toBe('failed');
    expect(runStatusOf('TIMED_OUT')).toBe('timed_out');
    expect(runStatusOf('CANCELLED')).toBe('cancelled');
    // A terminated workflow could not report anything: its last word is stale.
    expect(runStatusOf('TERMINATED', 'running')).toBe('terminated');
    expect(runStatusOf('TIMED_OUT', 'waiting_approval')).toBe('timed_out');
  });

  it('ignores a reported value that is not a status', () => {
    expect(runStatusOf('RUNNING', 'WAITING_APPROVAL')).toBe('running');
    expect(runStatusOf('COMPLETED', 42)).toBe('completed');
    expect(isRunStatus('waiting_approval')).toBe(true);
    expect(isRunStatus('terminated')).toBe(true);
    expect(isRunStatus('continued_as_new')).toBe(false);
    expect(isRunStatus('continued')).toBe(true);
  });
});

describe('exitCodeOf', () => {
  it('follows the CLI contract: 0 completed, 1 failed or timed out, 3 cancelled or terminated, 4 still open or handed on', () => {
    expect(RUN_STATUSES.map((status) => [status, exitCodeOf(status)])).toEqual([
      ['running', EXIT.detached],
      ['waiting_approval', EXIT.detached],
      ['paused', EXIT.detached],
      ['waiting_input', EXIT.detached],
      ['completed', EXIT.finished],
      ['failed', EXIT.failed],
      ['cancelled', EXIT.cancelled],
      ['terminated', EXIT.cancelled],
      ['timed_out', EXIT.failed],
      ['continued', EXIT.detached],
    ]);
  });
});

describe('visibilityClause', () => {
  it('matches closed runs by the server’s execution status as runStatusOf decides them', () => {
    expect(visibilityClause('failed')).toBe(
      `(ExecutionStatus = 'Failed' OR (ExecutionStatus = 'Completed' AND AgentStatus = 'failed'))`,
    );
    expect(visibilityClause('cancelled')).toBe(`ExecutionStatus = 'Canceled'`);
    expect(visibilityClause('terminated')).toBe(`ExecutionStatus = 'Terminated'`);
    expect(visibilityClause('timed_out')).toBe(`ExecutionStatus = 'TimedOut'`);
    expect(visibilityClause('running')).toContain(`ExecutionStatus = 'Running'`);
    expect(visibilityClause('waiting_approval')).toContain(`AgentStatus = 'waiting_approval'`);
  });
});
