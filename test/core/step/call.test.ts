// The call machine of core/step/call.ts on its own: every gate in order, every ask policy, fallbacks, lost activities,
// the read state and the lifecycle — no Temporal, no activities, just what a call needs next and what state it leaves.
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { StoredToolResult } from '../../../src/protocol/tool-activity.js';
import type { BreakerState } from '../../../src/core/breaker.js';
import type { Envelope } from '../../../src/protocol/envelope.js';
import { errorEnvelope, okEnvelope } from '../../../src/protocol/envelope.js';
import type { BashClassification, BashSegment } from '../../../src/protocol/bash-classification.js';
import { classificationOf } from '../../../src/core/permissions/index.js';
import type { AgentInput, AgentState } from '../../../src/core/state.js';
import { initialState } from '../../../src/core/state.js';
import type { ExecutablePlan } from '../../../src/core/tool-calls.js';
import { planToolCalls, normalizeToolCallIds } from '../../../src/core/tool-calls.js';
import { outcomeOf } from '../../../src/protocol/tool-outcome.js';
import type { CallNeed, CallRun } from '../../../src/core/step/call-run.js';
import type { StepEnv } from '../../../src/core/step/step-env.js';
import {
  nextNeed,
  onActivityFailure,
  onActivityResult,
  onBaseline,
  onClassified,
  onDecision,
  startCall,
} from '../../../src/core/step/call.js';
import { readStateFor, relativeToWorkspace } from '../../../src/core/step/call-paths.js';
import { createTaskRegistry } from '../../../src/tools/task-registry.js';
import type { McpToolDescriptor } from '../../../src/protocol/mcp.js';

const WORKSPACE = '/work/space';
const NOW = 1_000_000;

function env(
  overrides: Partial<AgentInput> = {},
  state: AgentState = initialState('task-1', 'system', 'do it'),
): StepEnv {
  state.step = 3;
  const input: AgentInput = {
    task: 'do it',
    workspace: WORKSPACE,
    selection: { model: 'm' },
    maxSteps: 10,
    mode: 'default',
    askPolicy: 'wait',
    // The gates are the subject here; the checkpoints' own needs are tested on their own below.
    checkpoints: false,
    ...overrides,
  };
  return { state, input, registry: createTaskRegistry() };
}

function plan(turnEnv: StepEnv, name: string, args: Record<string, unknown>, id = 'call_1'): ExecutablePlan {
  const calls = [{ id, name, arguments: JSON.stringify(args), complete: true }];
  const registry = turnEnv.registry;
  return planToolCalls(calls, normalizeToolCallIds(calls, turnEnv.state.step), {
    resolveName: (raw) => registry.resolveName(raw),
    get: (toolName) => registry.get(toolName),
    availableNames: () => registry.list().map((tool) => tool.name),
    isUndiscovered: () => false,
  })[0] as ExecutablePlan;
}

function start(turnEnv: StepEnv, name: string, args: Record<string, unknown>): { run: CallRun; need: CallNeed } {
  const started = startCall(turnEnv, plan(turnEnv, name, args), NOW);
  return { run: started.run!, need: started.need };
}

function stored(envelope: Envelope, extra: Partial<StoredToolResult> = {}): StoredToolResult {
  return {
    call: { callId: 'call_1', turn: 3, index: 0 },
    message: { key: `sha256:${'a'.repeat(64)}`, tokens: 10 },
    outcome: outcomeOf(envelope),
    ...extra,
  };
}

const ok = (text = 'done'): StoredToolResult =>
  stored(okEnvelope({ data: {}, text, context: { tool_call_id: 'call_1', cwd: '.', params_input: {} } }));
const failed = (
  code: 'EXECUTION_ERROR' | 'TIMEOUT' | 'NOT_FOUND' | 'MCP_NETWORK_ERROR' | 'MCP_EXECUTION_ERROR' = 'EXECUTION_ERROR',
): StoredToolResult =>
  stored(errorEnvelope({ code, message: 'it broke', context: { tool_call_id: 'call_1', cwd: '.', params_input: {} } }));

function segment(overrides: Partial<BashSegment>): BashSegment {
  return { text: 'x', level: 'read_only', rule: 'read_command', reason: 'only reads', action: 'allow', ...overrides };
}
const readOnlyCommand: BashClassification = classificationOf([segment({ text: 'ls' })]);
const destructive: BashClassification = classificationOf([
  segment({
    text: 'rm -rf build',
    level: 'destructive',
    rule: 'recursive_delete',
    reason: 'deletes recursively',
    action: 'ask',
  }),
]);
const networkWrite: BashClassification = classificationOf([
  segment({
    text: 'npm install lodash',
    level: 'network_write',
    rule: 'package_install',
    reason: 'installs packages',
    action: 'ask',
    approvalKey: 'npm install',
  }),
]);
const forbidden: BashClassification = classificationOf([
  segment({ text: 'sudo rm', level: 'forbidden', rule: 'privilege', reason: 'escalates', action: 'deny' }),
]);

/** The message of the envelope a workflow-made result stored (pending writes hold it until the next activity). */
function envelopeOf(turnEnv: StepEnv, need: CallNeed): Envelope {
  if (need.type !== 'done') throw new Error(`expected done, got ${need.type}`);
  const text = turnEnv.state.pendingWrites[need.result.message.key];
  if (text === undefined) throw new Error('the result was not made by the workflow');
  return JSON.parse(JSON.parse(text).content) as Envelope;
}

const eventTypes = (state: AgentState): string[] => state.events.map((event) => event.type);

describe('the gates, in order: breaker → (classification) → permission → ask policy → activity', () => {
  it('a read goes straight to its activity, tried in the workflow worker first', () => {
    const turnEnv = env();
    const { need } = start(turnEnv, 'ReadFile', { path: 'src/a.ts' });
    expect(need).toMatchObject({
      type: 'activity',
      tool: 'ReadFile',
      local: true,
      request: { callId: 'call_1', turn: 3, input: { path: 'src/a.ts' } },
    });
    expect(eventTypes(turnEnv.state)).toEqual(['tool_lifecycle', 'permission_decision', 'tool_lifecycle']);
    expect(turnEnv.state.lastTool).toBe('ReadFile');
  });

  it('an open circuit stops the call before the permission is even decided', () => {
    const turnEnv = env();
    const open: BreakerState = {
      state: 'OPEN',
      failures: 3,
      opened_at: NOW - 1_000,
      trial_in_flight: false,
      last_error: 'boom',
    };
    turnEnv.state.breakers.ReadFile = open;
    const { need } = start(turnEnv, 'ReadFile', { path: 'a' });
    expect(envelopeOf(turnEnv, need).error).toMatchObject({
      code: 'CIRCUIT_OPEN',
      details: { failures: 3, last_error: 'boom' },
    });
    expect(eventTypes(turnEnv.state)).not.toContain('permission_decision');
  });

  it('a shell command is classified where the workspace is before the permission is decided', () => {
    const turnEnv = env({ toolTaskQueue: 'host-a' });
    const { run, need } = start(turnEnv, 'Bash', { command: 'ls  -la' });
    expect(need).toMatchObject({
      type: 'classify',
      command: 'ls  -la',
      cwd: '.',
      workspace: WORKSPACE,
      taskQueue: 'host-a',
      summary: 'classifyBash ls -la',
    });
    expect(eventTypes(turnEnv.state)).not.toContain('permission_decision');
    const next = onClassified(turnEnv, run, readOnlyCommand, NOW);
    // Commands are not concurrency-safe: straight to the host's queue, with the classification echoed.
    expect(next).toMatchObject({
      type: 'activity',
      tool: 'Bash',
      local: false,
      taskQueue: 'host-a',
      request: { classification: { level: 'read_only' } },
    });
  });

  it('a DENY never asks and never runs, and gives back a HALF_OPEN trial it held', () => {
    const turnEnv = env();
    turnEnv.state.breakers.Bash = { state: 'OPEN', failures: 3, opened_at: NOW - 10_000_000, trial_in_flight: false };
    const { run } = start(turnEnv, 'Bash', { command: 'sudo rm' });
    expect(turnEnv.state.breakers.Bash).toMatchObject({ state: 'HALF_OPEN', trial_in_flight: true });
    const need = onClassified(turnEnv, run, forbidden, NOW);
    expect(envelopeOf(turnEnv, need).error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { reason: 'privilege' },
    });
    expect(turnEnv.state.breakers.Bash).toMatchObject({ state: 'HALF_OPEN', trial_in_flight: false });
    expect(eventTypes(turnEnv.state)).not.toContain('permission_ask');
  });

  it('a path outside the workspace is ACCESS_DENIED before any rule about the tool', () => {
    const turnEnv = env();
    const { need } = start(turnEnv, 'WriteFile', { path: '../etc/passwd', content: 'x' });
    expect(envelopeOf(turnEnv, need).error?.code).toBe('ACCESS_DENIED');
  });

  it('read-only mode denies a write, and a disabled tool is denied', () => {
    const readOnly = env({ mode: 'read_only' });
    expect(
      envelopeOf(readOnly, start(readOnly, 'WriteFile', { path: 'a.txt', content: 'x' }).need).error,
    ).toMatchObject({ details: { reason: 'read_only_mode' } });
    const disabled = env();
    disabled.registry.disable('Glob');
    expect(envelopeOf(disabled, start(disabled, 'Glob', { pattern: '*' }).need).error).toMatchObject({
      details: { reason: 'tool_disabled' },
    });
  });

  it('ToolSearch runs in the workflow: no activity, an envelope at once', () => {
    const turnEnv = env();
    const { need } = start(turnEnv, 'ToolSearch', { query: 'anything' });
    expect(envelopeOf(turnEnv, need)).toMatchObject({ status: 'success' });
    expect(turnEnv.state.breakers.ToolSearch).toMatchObject({ state: 'CLOSED' });
  });

  it('a call that failed planning is done at once with its own envelope and a progress line', () => {
    const turnEnv = env();
    const failedPlan = plan(turnEnv, 'NoSuchTool', {});
    expect(failedPlan.state).toBe('failed');
    const { run, need } = startCall(turnEnv, failedPlan, NOW);
    expect(run).toBeUndefined();
    expect(envelopeOf(turnEnv, need).status).toBe('error');
    expect(turnEnv.state.progress.at(-1)).toMatchObject({
      kind: 'tool',
      tool: 'NoSuchTool',
      status: expect.any(String),
    });
  });
});

describe('every ask policy', () => {
  const asks = [
    { policy: 'approve', result: 'runs', status: 'running' },
    { policy: 'deny', result: 'denied', status: 'running' },
    { policy: 'wait', result: 'waits', status: 'waiting_approval' },
    { policy: 'prompt', result: 'waits', status: 'waiting_approval' },
  ] as const;

  it.each(asks)('--ask $policy: a destructive command $result', ({ policy, result, status }) => {
    const turnEnv = env({ askPolicy: policy });
    const { run } = start(turnEnv, 'Bash', { command: 'rm -rf build' });
    const need = onClassified(turnEnv, run, destructive, NOW);
    expect(turnEnv.state.status).toBe(status);
    expect(eventTypes(turnEnv.state)).toContain('permission_ask');
    if (result === 'runs') expect(need).toMatchObject({ type: 'activity', tool: 'Bash' });
    if (result === 'denied') {
      expect(envelopeOf(turnEnv, need).error).toMatchObject({
        code: 'PERMISSION_DENIED',
        details: { reason: 'not_approved', rejection_reason: 'the run does not ask (--ask deny)' },
      });
      expect(envelopeOf(turnEnv, need).error?.message).toMatch(/requires confirmation .* and was not approved/);
    }
    if (result === 'waits') {
      expect(need).toMatchObject({
        type: 'approval',
        timeoutMs: 600_000,
        request: { callId: 'call_1', tool: 'Bash', level: 'destructive', command: 'rm -rf build', requestedAt: NOW },
      });
    }
  });

  it('waiting: an approval runs the call and the run is running again', () => {
    const turnEnv = env({ askTimeoutMs: 5_000 });
    const { run } = start(turnEnv, 'Bash', { command: 'rm -rf build' });
    expect(onClassified(turnEnv, run, destructive, NOW)).toMatchObject({ type: 'approval', timeoutMs: 5_000 });
    expect(() => nextNeed(turnEnv, run, NOW)).toThrow(/waiting for a decision/);
    const need = onDecision(turnEnv, run, { tool_call_id: 'call_1', decision: 'approve' }, NOW);
    // The activity knows the call was approved: its sandbox then lets it write protected paths.
    expect(need).toMatchObject({ type: 'activity', tool: 'Bash', request: { approved: true } });
    expect(turnEnv.state.status).toBe('running');
    expect(turnEnv.state.approvals).toEqual([]);
  });

  it("says who decided and why, and counts the human's wait apart from the tool's time", () => {
    const turnEnv = env();
    const { run } = start(turnEnv, 'Bash', { command: 'rm -rf build' });
    onClassified(turnEnv, run, destructive, NOW);
    const decision = { tool_call_id: 'call_1', decision: 'approve' as const, reason: 'stale', decided_by: 'ana@ops' };
    onDecision(turnEnv, run, decision, NOW + 60_000);
    onActivityResult(turnEnv, run, ok('removed'), NOW + 60_250);
    const [approval, tool] = turnEnv.state.progress.slice(-2);
    expect(approval).toMatchObject({
      kind: 'approval',
      status: 'approved',
      text: 'approved by ana@ops: stale',
      ms: 60_000,
    });
    expect(tool).toMatchObject({ kind: 'tool', tool: 'Bash', ms: 250 });
  });

  it("a decision is kept under the call's identity: step, position, tool and arguments, never the id alone", () => {
    const turnEnv = env();
    const first = start(turnEnv, 'Bash', { command: 'rm -rf build' });
    const asked = onClassified(turnEnv, first.run, destructive, NOW);
    const second = start(turnEnv, 'Bash', { command: 'rm -rf docs' });
    const askedAgain = onClassified(turnEnv, second.run, destructive, NOW);
    if (asked.type !== 'approval' || askedAgain.type !== 'approval') throw new Error('expected two questions');
    expect(asked.request.callId).toBe(askedAgain.request.callId);
    expect(asked.request.identity).toMatch(/^3\/0\/Bash\/[0-9a-f]{16}$/);
    expect(askedAgain.request.identity).not.toBe(asked.request.identity);
  });

  it('waiting: a rejection (or a timeout) is PERMISSION_DENIED with what was said', () => {
    const turnEnv = env();
    const { run } = start(turnEnv, 'Bash', { command: 'rm -rf build' });
    onClassified(turnEnv, run, destructive, NOW);
    const need = onDecision(
      turnEnv,
      run,
      { tool_call_id: 'call_1', decision: 'reject', reason: 'no decision within 600 s' },
      NOW,
    );
    expect(envelopeOf(turnEnv, need).error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { rejection_reason: 'no decision within 600 s', permission: { level: 'destructive' } },
    });
    expect(turnEnv.state.status).toBe('running');
  });

  const remembers = [
    {
      name: 'a network_write approval covers its key for the task',
      classification: networkWrite,
      remember: false,
      kept: ['npm install'],
    },
    {
      name: '--remember keeps a network_write key',
      classification: networkWrite,
      remember: true,
      kept: ['npm install'],
    },
    { name: 'a destructive approval covers only this call', classification: destructive, remember: false, kept: [] },
  ];
  it.each(remembers)('$name', ({ classification, remember, kept }) => {
    const turnEnv = env();
    const { run } = start(turnEnv, 'Bash', { command: 'x' });
    onClassified(turnEnv, run, classification, NOW);
    onDecision(turnEnv, run, { tool_call_id: 'call_1', decision: 'approve', remember }, NOW);
    expect(turnEnv.state.approvals).toEqual(kept);
  });

  it('a remembered key lets the next call with it run without asking', () => {
    const turnEnv = env();
    turnEnv.state.approvals = ['npm install'];
    const { run } = start(turnEnv, 'Bash', { command: 'npm install lodash' });
    const need = onClassified(turnEnv, run, networkWrite, NOW);
    expect(need).toMatchObject({ type: 'activity' });
    // A remembered key is no approval of this call: its protected paths stay read-only.
    expect(need.type === 'activity' && need.request.approved).toBeUndefined();
    expect(turnEnv.state.events.find((event) => event.type === 'permission_decision')?.data).toMatchObject({
      action: 'allow',
      rule: 'approved_in_task',
    });
  });

  it('a write outside writeAutoAllow asks; one inside runs', () => {
    const turnEnv = env({ askPolicy: 'deny' });
    expect(start(turnEnv, 'WriteFile', { path: 'src/a.ts', content: 'x' }).need).toMatchObject({
      type: 'activity',
      tool: 'WriteFile',
      local: false,
    });
    const protectedWrite = start(turnEnv, 'WriteFile', { path: '.git/config', content: 'x' }).need;
    expect(protectedWrite.type).toBe('done');
  });
});

describe('after the activity', () => {
  it('a success closes the breaker and records a completed lifecycle and a progress line', () => {
    const turnEnv = env();
    const { run } = start(turnEnv, 'ReadFile', { path: 'src/a.ts' });
    const need = onActivityResult(turnEnv, run, ok('read 3 lines'), NOW + 40);
    expect(need).toMatchObject({ type: 'done', result: { outcome: { status: 'success', text: 'read 3 lines' } } });
    expect(turnEnv.state.events.at(-1)).toMatchObject({ type: 'tool_lifecycle', data: { status: 'completed' } });
    expect(turnEnv.state.progress.at(-1)).toMatchObject({
      kind: 'tool',
      tool: 'ReadFile',
      status: 'success',
      ms: 40,
      text: 'src/a.ts',
    });
  });

  it('a read answered `elsewhere` goes to the workspace host; a second `elsewhere` is a failure, not a loop', () => {
    const turnEnv = env({ toolTaskQueue: 'host-b' });
    const { run, need } = start(turnEnv, 'ReadFile', { path: 'a' });
    expect(need).toMatchObject({ local: true, request: { onlyOnHost: 'host-b' } });
    const remote = onActivityResult(turnEnv, run, { elsewhere: true }, NOW);
    expect(remote).toMatchObject({ type: 'activity', local: false, taskQueue: 'host-b' });
    expect(remote.type === 'activity' && remote.request.onlyOnHost).toBeUndefined();
    const lost = onActivityResult(turnEnv, run, { elsewhere: true }, NOW);
    expect(envelopeOf(turnEnv, lost).error?.message).toMatch(/does not own the workspace/);
  });

  it("the read state: only the entry of the call's own path goes out; updates and symlink aliases come back", () => {
    const turnEnv = env();
    const entry = { sha256: 'x', mtimeMs: 1, size: 3, partial: false } as unknown as AgentState['readState'][string];
    turnEnv.state.readState = { 'real/a.ts': entry, 'other.ts': entry };
    turnEnv.state.readStateAliases = { 'link/a.ts': 'real/a.ts' };
    const { run, need } = start(turnEnv, 'EditFile', {
      path: `${WORKSPACE}/link/a.ts`,
      old_string: 'a',
      new_string: 'b',
    });
    expect(need).toMatchObject({ type: 'activity', request: { readState: { 'real/a.ts': entry } } });
    onActivityResult(turnEnv, run, { ...ok(), readStateUpdate: { key: 'real/a.ts', entry: null } }, NOW);
    expect(turnEnv.state.readState).toEqual({ 'other.ts': entry });
    const glob = start(turnEnv, 'Glob', { pattern: '*' }).need;
    expect(glob.type === 'activity' && 'readState' in glob.request).toBe(false);
    expect(readStateFor(turnEnv.state, undefined)).toEqual({});
    expect(relativeToWorkspace(WORKSPACE, `${WORKSPACE}/./x/../y.ts`)).toBe('y.ts');
  });

  const lost = [
    {
      name: 'a start-to-close timeout is TIMEOUT',
      tool: 'ReadFile',
      error: timeout('START_TO_CLOSE'),
      code: 'TIMEOUT',
      message: /did not finish within/,
    },
    {
      name: 'a missed heartbeat of a command: it may have partially run',
      tool: 'Bash',
      error: timeout('HEARTBEAT'),
      code: 'EXECUTION_ERROR',
      message: /may have partially run/,
    },
    {
      name: 'a missed heartbeat of a read: worker lost',
      tool: 'ReadFile',
      error: timeout('HEARTBEAT'),
      code: 'EXECUTION_ERROR',
      message: /worker lost during execution\.$/,
    },
    {
      name: 'anything else is INTERNAL_ERROR with its cause',
      tool: 'ReadFile',
      error: activityFailure(ApplicationFailure.create({ message: 'disk on fire' })),
      code: 'INTERNAL_ERROR',
      message: /disk on fire/,
    },
  ];
  it.each(lost)('$name', ({ tool, error, code, message }) => {
    const turnEnv = env({ askPolicy: 'approve' });
    const { run } = start(turnEnv, tool, tool === 'Bash' ? { command: 'make' } : { path: 'a' });
    if (tool === 'Bash') onClassified(turnEnv, run, readOnlyCommand, NOW);
    // A read is tried once in the workflow's own worker: failing there (or running out of its bound), it runs again as
    // an ordinary activity, whose failure is the answer.
    if (tool === 'ReadFile')
      expect(onActivityFailure(turnEnv, run, error, NOW)).toMatchObject({ type: 'activity', local: false });
    const need = onActivityFailure(turnEnv, run, error, NOW);
    expect(envelopeOf(turnEnv, need).error).toMatchObject({ code });
    expect(envelopeOf(turnEnv, need).error?.message).toMatch(message);
  });

  it('counted failures open the breaker at the threshold', () => {
    const turnEnv = env({ breaker: { threshold: 2 } });
    for (const _ of [1, 2]) {
      const { run } = start(turnEnv, 'Glob', { pattern: '*' });
      onActivityResult(turnEnv, run, failed('EXECUTION_ERROR'), NOW);
    }
    expect(turnEnv.state.breakers.Glob).toMatchObject({ state: 'OPEN', failures: 2 });
    expect(eventTypes(turnEnv.state)).toContain('circuit_state_change');
  });
});

describe('workspace checkpoints around calls that may change files', () => {
  const key = (letter: string) => `sha256:${letter.repeat(64)}` as const;
  const checkpointed = (after: string, log: string) => ({
    ...ok(),
    checkpoint: { before: key('0'), after: key(after), changes: { added: 1, modified: 0, deleted: 0 }, log: key(log) },
  });

  it("records the run's files first, then each write follows the last checkpoint and extends the log", () => {
    const turnEnv = env({ checkpoints: { ignore: ['dist/'] }, toolTaskQueue: 'q@host' });
    const { run, need } = start(turnEnv, 'WriteFile', { path: 'a.txt', content: 'x' });
    expect(need).toEqual({
      type: 'baseline',
      workspace: WORKSPACE,
      ignore: ['dist/'],
      taskQueue: 'q@host',
      summary: 'checkpointWorkspace (before the first change)',
    });
    const activity = onBaseline(turnEnv, run, key('0'), NOW);
    expect(activity).toMatchObject({
      type: 'activity',
      request: { checkpoint: { previous: key('0'), log: null, ignore: ['dist/'] } },
    });
    onActivityResult(turnEnv, run, checkpointed('1', 'a'), NOW);
    expect(turnEnv.state).toMatchObject({ checkpoint: key('1'), checkpointLog: key('a') });

    // The next write needs no baseline: it goes from the last checkpoint, and its entry follows the last one.
    const next = start(turnEnv, 'Bash', { command: 'touch b.txt' });
    const classified = onClassified(turnEnv, next.run, classificationOf([]), NOW);
    expect(classified).toMatchObject({
      type: 'activity',
      request: { checkpoint: { previous: key('1'), log: key('a') } },
    });
  });

  it('takes the next checkpoint whole after a call that left none (its worker lost): the files may have moved on', () => {
    const turnEnv = env({ checkpoints: undefined });
    turnEnv.state.checkpoint = key('0');
    const lost = start(turnEnv, 'WriteFile', { path: 'a.txt', content: 'x' });
    expect(lost.need).toMatchObject({ type: 'activity', request: { checkpoint: { previous: key('0') } } });
    expect(lost.need.type === 'activity' && lost.need.request.checkpoint?.whole).toBeUndefined();
    onActivityFailure(turnEnv, lost.run, timeout('HEARTBEAT'), NOW);

    const next = start(turnEnv, 'WriteFile', { path: 'b.txt', content: 'y' });
    expect(next.need).toMatchObject({ type: 'activity', request: { checkpoint: { previous: key('0'), whole: true } } });
    onActivityResult(turnEnv, next.run, checkpointed('2', 'b'), NOW);
    const after = start(turnEnv, 'WriteFile', { path: 'c.txt', content: 'z' }).need;
    expect(after.type === 'activity' && after.request.checkpoint).toEqual({ previous: key('2'), log: key('b') });
  });

  it('takes none for a read, none in a run without checkpoints, and goes ahead when the baseline could not be taken', () => {
    const reads = env({ checkpoints: undefined });
    const read = start(reads, 'ReadFile', { path: 'a.txt' }).need;
    expect(read.type).toBe('activity');
    expect(read.type === 'activity' && 'checkpoint' in read.request).toBe(false);

    const off = env({ checkpoints: false });
    const write = start(off, 'WriteFile', { path: 'a.txt', content: 'x' }).need;
    expect(write.type === 'activity' && 'checkpoint' in write.request).toBe(false);

    const lost = env({ checkpoints: undefined });
    const { run, need } = start(lost, 'WriteFile', { path: 'a.txt', content: 'x' });
    expect(need.type).toBe('baseline');
    // The tool's own activity then records the files before it (previous: null); the call is not held up.
    expect(onBaseline(lost, run, undefined, NOW)).toMatchObject({
      type: 'activity',
      request: { checkpoint: { previous: null, log: null } },
    });
    expect(lost.state.checkpoint).toBeUndefined();
  });
});

describe("an MCP server's breaker and its tools' own", () => {
  const tool = (name: string): McpToolDescriptor => ({
    name: `mcp__fs__${name}`,
    server: 'fs',
    tool: name,
    description: `${name} a file`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  });
  const mcpEnv = (): StepEnv => {
    const turnEnv = env({ breaker: { threshold: 2 } });
    return { ...turnEnv, registry: createTaskRegistry([], [tool('read'), tool('stat')]) };
  };

  it('a server that does not answer opens the breaker every tool of it passes', () => {
    const turnEnv = mcpEnv();
    for (const name of ['read', 'stat']) {
      const { run } = start(turnEnv, `mcp__fs__${name}`, { path: 'a' });
      onActivityResult(turnEnv, run, failed('MCP_NETWORK_ERROR'), NOW);
    }
    expect(turnEnv.state.breakers['mcp:fs']).toMatchObject({ state: 'OPEN', failures: 2 });
    expect(turnEnv.state.breakers.mcp__fs__read).toMatchObject({ state: 'CLOSED', failures: 0 });
    const { run } = start(turnEnv, 'mcp__fs__read', { path: 'a' });
    expect(run.phase).toBe('done');
    expect(turnEnv.registry.visible({ mode: 'default', openTools: new Set(['mcp:fs']) }).map((t) => t.name)).toEqual(
      expect.not.arrayContaining(['mcp__fs__read', 'mcp__fs__stat']),
    );
  });

  it("a tool's own errors open its breaker only; the server's other tools stay", () => {
    const turnEnv = mcpEnv();
    for (const _ of [1, 2]) {
      const { run } = start(turnEnv, 'mcp__fs__read', { path: 'missing' });
      onActivityResult(turnEnv, run, failed('MCP_EXECUTION_ERROR'), NOW);
    }
    expect(turnEnv.state.breakers.mcp__fs__read).toMatchObject({ state: 'OPEN', failures: 2 });
    expect(turnEnv.state.breakers['mcp:fs']).toMatchObject({ state: 'CLOSED', failures: 0 });
    const stat = start(turnEnv, 'mcp__fs__stat', { path: 'a' });
    expect(stat.need).toMatchObject({ type: 'activity' });
  });

  it("a call refused at the server's gate gives back the trial it took at the tool's own", () => {
    const turnEnv = mcpEnv();
    turnEnv.state.breakers.mcp__fs__read = { state: 'OPEN', failures: 2, opened_at: 0, trial_in_flight: false };
    turnEnv.state.breakers['mcp:fs'] = { state: 'OPEN', failures: 2, opened_at: NOW, trial_in_flight: false };
    start(turnEnv, 'mcp__fs__read', { path: 'a' });
    expect(turnEnv.state.breakers.mcp__fs__read).toMatchObject({ state: 'HALF_OPEN', trial_in_flight: false });
  });
});

describe('fallbacks', () => {
  it('a failing Grep is served by Bash; the envelope says so and the progress line names Grep', () => {
    const turnEnv = env({ askPolicy: 'approve' });
    const { run } = start(turnEnv, 'Grep', { pattern: 'TODO' });
    const fallback = onActivityResult(turnEnv, run, failed('EXECUTION_ERROR'), NOW);
    expect(fallback).toMatchObject({ type: 'classify' });
    expect(turnEnv.state.events.at(-1)).toMatchObject({
      type: 'tool_fallback',
      data: { from: 'Grep', to: 'Bash', reason: 'primary_failed:EXECUTION_ERROR' },
    });
    const bashNeed = onClassified(turnEnv, run, readOnlyCommand, NOW);
    expect(bashNeed).toMatchObject({
      type: 'activity',
      tool: 'Bash',
      request: { fallback: { served_by: 'Bash', primary: 'Grep' } },
    });
    const done = onActivityResult(turnEnv, run, ok('3 matches'), NOW);
    expect(done).toMatchObject({ type: 'done', result: { outcome: { text: '3 matches' } } });
    expect(turnEnv.state.progress.at(-1)).toMatchObject({ tool: 'Grep', text: 'TODO', status: 'success' });
  });

  it('an open circuit goes to the fallback without running the primary', () => {
    const turnEnv = env({ askPolicy: 'approve' });
    turnEnv.state.breakers.Grep = { state: 'OPEN', failures: 3, opened_at: NOW, trial_in_flight: false };
    start(turnEnv, 'Grep', { pattern: 'x' });
    expect(turnEnv.state.events.at(-1)).toMatchObject({ type: 'tool_fallback', data: { reason: 'circuit_open' } });
  });

  it("when the fallback fails too, the primary's result stands", () => {
    const turnEnv = env({ askPolicy: 'approve' });
    const { run } = start(turnEnv, 'Grep', { pattern: 'x' });
    onActivityResult(turnEnv, run, failed('EXECUTION_ERROR'), NOW);
    onClassified(turnEnv, run, readOnlyCommand, NOW);
    const done = onActivityResult(turnEnv, run, failed('TIMEOUT'), NOW);
    expect(done).toMatchObject({ type: 'done', result: { outcome: { error: { code: 'EXECUTION_ERROR' } } } });
  });

  it('a result the model caused (NOT_FOUND) is no reason to fall back; nor is a disabled fallback usable', () => {
    const notFound = env();
    const { run } = start(notFound, 'Grep', { pattern: 'x' });
    expect(onActivityResult(notFound, run, failed('NOT_FOUND'), NOW).type).toBe('done');
    const disabled = env();
    disabled.registry.disable('Bash');
    const second = start(disabled, 'Grep', { pattern: 'x' });
    expect(onActivityResult(disabled, second.run, failed('EXECUTION_ERROR'), NOW).type).toBe('done');
  });
});

function timeout(type: 'START_TO_CLOSE' | 'HEARTBEAT'): ActivityFailure {
  return activityFailure(new TimeoutFailure(`activity ${type} timeout`, undefined, type));
}

function activityFailure(cause: Error): ActivityFailure {
  return new ActivityFailure('activity failed', 'ReadFile', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', cause);
}
