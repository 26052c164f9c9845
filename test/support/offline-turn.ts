// One assistant turn through the same pure rules the workflow runs (core/step), with the outside world played by
// scripted answers instead of activities: what src/workflows/tool-step.ts awaits, answered in the same order.
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import type { StoredToolResult } from '../../src/protocol/tool-activity.js';
import type { ApplyOutputBudgetResult } from '../../src/protocol/output-budget.js';
import { contentKey } from '../../src/protocol/content-key.js';
import type { Envelope } from '../../src/protocol/envelope.js';
import { errorEnvelope, okEnvelope, serializeEnvelope } from '../../src/protocol/envelope.js';
import type { ChatMessage, ModelTurn } from '../../src/protocol/model.js';
import type { BashClassification } from '../../src/protocol/bash-classification.js';
import { classificationOf } from '../../src/core/permissions/index.js';
import { outcomeOf } from '../../src/protocol/tool-outcome.js';
import { parseNode, serializeMessage, tokensOf } from '../../src/protocol/transcript-ref.js';
import type { CallNeed, CallRun } from '../../src/core/step/call-run.js';
import type { ToolResult, StepEnv } from '../../src/core/step/step-env.js';
import {
  onActivityFailure,
  onActivityResult,
  onBaseline,
  onClassified,
  onDecision,
  startCall,
} from '../../src/core/step/call.js';
import {
  answerDuplicates,
  withBudgetedResults,
  batchEnded,
  batchStarted,
  endStepCalls,
  planStepCalls,
  outputBudgetRequest,
} from '../../src/core/step/step-calls.js';

/** How a tool activity answers. */
export type ActivityAnswer = 'success' | 'partial' | 'error' | 'failure' | 'timeout' | 'elsewhere';
/** How a command is classified. */
export type CommandVerdict = 'read_only' | 'destructive' | 'forbidden';

/** The outside world of one turn: answers are taken in turn, cycling. */
export interface OfflineWorld {
  activities: readonly ActivityAnswer[];
  commands: readonly CommandVerdict[];
  approvals: readonly boolean[];
}

/** What a turn left: the messages it appended and how often each kind of need came up. */
export interface OfflineTurn {
  assistant: ChatMessage;
  answers: ChatMessage[];
  activityCalls: number;
}

/** The checkpoint a recorded baseline names (its content is never read offline). */
const BASELINE = `sha256:${'b'.repeat(64)}` as const;
const NOW = 1_700_000_000_000;

/** Runs the turn's tool calls as the workflow would and reads back the messages it appended to the transcript. */
export function runTurnOffline(env: StepEnv, turn: ModelTurn, world: OfflineWorld): OfflineTurn {
  // Messages the fake activities stored: the workflow only ever holds their keys.
  const stored = new Map<string, string>();
  const counters = { activity: 0, command: 0, approval: 0 };
  const planned = planStepCalls(env, turn, NOW);
  const results = new Array<ToolResult>(planned.plans.length);
  for (const [number, batch] of planned.batches.entries()) {
    batchStarted(env, number, batch, NOW);
    for (const plan of batch.calls) {
      const started = startCall(env, plan, NOW);
      results[plan.index] = settle(env, started.run, started.need, world, counters, stored);
    }
    batchEnded(env, number, NOW);
  }
  answerDuplicates(env, planned, results, NOW);
  const budget = outputBudgetRequest(env, planned.plans, results);
  const final = budget ? withBudgetedResults(env, planned.plans, results, noBudgetChange(), NOW) : results;
  const head = env.state.transcript.head;
  endStepCalls(env, planned, final);
  return { ...readTurn(env, head, stored), activityCalls: counters.activity };
}

function settle(
  env: StepEnv,
  run: CallRun | undefined,
  first: CallNeed,
  world: OfflineWorld,
  counters: { activity: number; command: number; approval: number },
  stored: Map<string, string>,
): ToolResult {
  let need = first;
  // A call needs at most a classification, an approval and an activity per attempt, and has few fallbacks.
  for (let steps = 0; steps < 50; steps++) {
    switch (need.type) {
      case 'done':
        return need.result;
      case 'classify':
        need = onClassified(env, run!, verdict(pick(world.commands, counters.command++)), NOW);
        break;
      case 'approval':
        need = onDecision(
          env,
          run!,
          {
            tool_call_id: need.request.callId,
            decision: pick(world.approvals, counters.approval++) ? 'approve' : 'reject',
          },
          NOW,
        );
        break;
      case 'baseline':
        // Recorded, or lost with its worker: either way the call goes ahead.
        need = onBaseline(env, run!, counters.activity % 2 === 0 ? BASELINE : undefined, NOW);
        break;
      case 'activity': {
        const answer = pick(world.activities, counters.activity++);
        if (answer === 'failure' || answer === 'timeout') {
          need = onActivityFailure(env, run!, activityFailure(answer), NOW);
          break;
        }
        if (answer === 'elsewhere') {
          need = onActivityResult(env, run!, { elsewhere: true }, NOW);
          break;
        }
        need = onActivityResult(env, run!, storedResult(need, answer, stored), NOW);
        break;
      }
    }
  }
  throw new Error('a call needed more than 50 things from outside the workflow');
}

function pick<T>(list: readonly T[], index: number): T {
  return list[index % list.length]!;
}

function verdict(kind: CommandVerdict): BashClassification {
  const segment = {
    read_only: { level: 'read_only', rule: 'read_command', reason: 'only reads', action: 'allow' },
    destructive: { level: 'destructive', rule: 'recursive_delete', reason: 'deletes', action: 'ask' },
    forbidden: { level: 'forbidden', rule: 'privilege', reason: 'escalates', action: 'deny' },
  } as const;
  return classificationOf([{ text: 'x', ...segment[kind] }]);
}

function activityFailure(kind: 'failure' | 'timeout'): ActivityFailure {
  const cause =
    kind === 'timeout'
      ? new TimeoutFailure('activity StartToClose timeout', undefined, 'START_TO_CLOSE')
      : ApplicationFailure.create({ message: 'disk on fire', type: 'Error' });
  return new ActivityFailure('activity failed', 'tool', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', cause);
}

/** What a tool activity returns: its tool message stored (here: in `stored`) and the outcome summary. */
function storedResult(
  need: Extract<CallNeed, { type: 'activity' }>,
  answer: 'success' | 'partial' | 'error',
  stored: Map<string, string>,
): StoredToolResult {
  const { callId, turn, index, paramsInput } = need.request;
  const context = { tool_call_id: callId, cwd: '.', params_input: paramsInput };
  const envelope: Envelope =
    answer === 'error'
      ? errorEnvelope({ code: 'EXECUTION_ERROR', message: `${need.tool} broke`, context })
      : okEnvelope({ status: answer, text: `${need.tool} ran`, context });
  const serialized = serializeMessage({ role: 'tool', tool_call_id: callId, content: serializeEnvelope(envelope) });
  const key = contentKey(serialized);
  stored.set(key, serialized);
  return {
    call: { callId, turn, index },
    message: { key, tokens: tokensOf(serialized) },
    outcome: outcomeOf(envelope),
  };
}

// The fake results are small, so a turn over the budget is one of many calls: the budget activity keeps them as they are.
function noBudgetChange(): ApplyOutputBudgetResult {
  return { items: [] };
}

/** The assistant message and tool messages the turn appended after `previousHead`. */
function readTurn(
  env: StepEnv,
  previousHead: string | null,
  stored: Map<string, string>,
): Omit<OfflineTurn, 'activityCalls'> {
  const { state } = env;
  const read = (key: string): string => {
    const text = state.pendingWrites[key] ?? stored.get(key);
    if (text === undefined) throw new Error(`content ${key} was never written`);
    return text;
  };
  const head = state.transcript.head!;
  const node = parseNode(head, read(head));
  if (node.prev !== previousHead) throw new Error('the turn did not append exactly one transcript node');
  const [assistant, ...answers] = node.messages.map((key) => JSON.parse(read(key)) as ChatMessage);
  return { assistant: assistant!, answers };
}
