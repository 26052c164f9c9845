// What the CLI makes of a run tree without a server: a sub-agent's id never goes to the HTTP API (its router has no
// path for an id with a slash, so `status ROOT/task-1-0` is read over gRPC), `list` draws children under their
// parent, and a parent's history names and times its children.
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../../src/history/events.js';
import { collectChildren } from '../../src/history/child-records.js';
import { HttpApiUnavailable, closeEvent, describeExecution, queryWorkflow } from '../../src/dev-server/http-api.js';
import type { RunRow } from '../../src/cli/commands/list.js';
import { formatRows } from '../../src/cli/commands/list.js';

describe('the HTTP API and a sub-agent id', () => {
  // A port nothing listens on: a request that went out would fail with a connection error instead.
  const api = {
    url: 'http://127.0.0.1:9',
    namespace: 'default',
    address: '127.0.0.1:9',
    serverNamespace: 'default',
    uiUrl: '',
    codecUrl: '',
    workerReady: async () => true,
  };

  it('hands every read of an id with a slash to gRPC before sending anything', async () => {
    for (const read of [
      () => describeExecution(api, 'root/task-1-0'),
      () => closeEvent(api, 'root/task-1-0', 'r1'),
      () => queryWorkflow(api, 'root/task-1-0', 'r1', 'state', []),
    ]) {
      await expect(read()).rejects.toThrow(HttpApiUnavailable);
      await expect(read()).rejects.toThrow(/has no path for workflow id root\/task-1-0/);
    }
    await expect(describeExecution(api, 'root')).rejects.toThrow(/127\.0\.0\.1:9/);
  });
});

function row(workflowId: string, parentWorkflowId: string | null, startTime: string): RunRow {
  return {
    workflowId,
    runId: 'r',
    status: 'completed',
    step: 1,
    costUsd: 0,
    pendingApprovals: 0,
    startTime,
    closeTime: null,
    task: workflowId,
    parentWorkflowId,
  };
}

describe('list rows as trees', () => {
  it('draws children under their parent oldest first, grandchildren deeper, and a child whose parent is not listed by its id', () => {
    const text = formatRows(
      [
        row('b', null, '2026-01-01T00:00:09Z'),
        row('a/task-1-1', 'a', '2026-01-01T00:00:03Z'),
        row('a/task-1-0/task-1-0', 'a/task-1-0', '2026-01-01T00:00:04Z'),
        row('a/task-1-0', 'a', '2026-01-01T00:00:02Z'),
        row('a', null, '2026-01-01T00:00:01Z'),
        row('c/task-1-0', 'c', '2026-01-01T00:00:05Z'),
      ],
      Date.parse('2026-01-01T00:01:00Z'),
    );
    const ids = text
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.slice(0, line.indexOf('  completed')).trimEnd());
    // Top-level rows keep the order they were given in (list sorts them newest first).
    expect(ids).toEqual(['b', 'a', ' └ task-1-0', '   └ task-1-0', ' └ task-1-1', 'c/task-1-0']);
  });

  it('escapes what a segment holds', () => {
    const text = formatRows(
      [row('a', null, '2026-01-01T00:00:01Z'), row('a/\u001b[2J', 'a', '2026-01-01T00:00:02Z')],
      0,
    );
    expect(text).toContain(' └ \\x1b[2J');
    expect(text).not.toContain('\u001b[2J');
  });
});

const at = (seconds: number) => ({ seconds, nanos: 0 });

describe('collectChildren', () => {
  it('names each child by its segment and times it from its start command to its close', () => {
    const events = [
      {
        eventId: '5',
        eventTime: at(10),
        startChildWorkflowExecutionInitiatedEventAttributes: { workflowId: 'p/task-1-0' },
      },
      {
        eventId: '6',
        eventTime: at(10),
        startChildWorkflowExecutionInitiatedEventAttributes: { workflowId: 'p/task-1-1' },
      },
      {
        eventId: '7',
        eventTime: at(11),
        startChildWorkflowExecutionInitiatedEventAttributes: { workflowId: 'p/task-1-2' },
      },
      {
        eventId: '8',
        eventTime: at(11),
        childWorkflowExecutionStartedEventAttributes: {
          initiatedEventId: '5',
          workflowExecution: { workflowId: 'p/task-1-0', runId: 'c0' },
        },
      },
      { eventId: '9', eventTime: at(11), startChildWorkflowExecutionFailedEventAttributes: { initiatedEventId: '6' } },
      { eventId: '10', eventTime: at(13), childWorkflowExecutionCompletedEventAttributes: { initiatedEventId: '5' } },
    ] as unknown as HistoryEvent[];
    const children = collectChildren(events);
    expect(Object.fromEntries(children)).toEqual({
      'task-1-0': { workflowId: 'p/task-1-0', runId: 'c0', outcome: 'completed', durationMs: 3_000 },
      'task-1-1': { workflowId: 'p/task-1-1', outcome: 'not_started', durationMs: 1_000 },
      'task-1-2': { workflowId: 'p/task-1-2', outcome: 'running', durationMs: null },
    });
  });
});
