// Workflow-safe and deterministic: the awaits of one step's tool calls. Every rule — the plan, the gates, the ask policy,
// fallbacks, envelopes, the output budget — is in core/step; this file only runs what a call needs next.
import { isCancellation, workflowInfo } from '@temporalio/workflow';
import { ACTIVITY } from '../protocol/activity-names.js';
import type { ModelTurn } from '../protocol/model.js';
import type { CallNeed, CallRun } from '../core/step/call-run.js';
import type { ToolResult, StepEnv } from '../core/step/step-env.js';
import {
  onActivityFailure,
  onActivityResult,
  onBaseline,
  onChildEnded,
  onClassified,
  onDecision,
  startCall,
} from '../core/step/call.js';
import { childStart } from '../core/sub-agents/child-start.js';
import { runChild } from './sub-agent.js';
import {
  answerDuplicates,
  withBudgetedResults,
  batchEnded,
  batchStarted,
  endStepCalls,
  planStepCalls,
  outputBudgetRequest,
} from '../core/step/step-calls.js';
import type { ExecutablePlan } from '../core/tool-calls.js';
import { interruptedDecision, onInterrupted } from '../core/step/call-interrupt.js';
import { toolNameOf } from '../core/step/call-records.js';
import { takeWrites } from '../protocol/transcript-ref.js';
import type { ContentKey } from '../protocol/content-key.js';
import { checkpointActivity, toolActivity, workspaceActivities } from './activities.js';
import type { ApprovalBook } from './approvals.js';
import type { Interruptible, Interrupter } from './interrupt.js';

/** What a step's tool calls need from the run: the rules' inputs, the approvals, and the publisher of status changes. */
export interface StepShell {
  env: StepEnv;
  approvals: ApprovalBook;
  /** Called when the run's status or pending approvals change (search attributes, current details). */
  publish: () => void;
  /** Cancels the calls under way when the operator interrupts (workflows/interrupt). */
  interrupts: Interrupter;
}

/** Runs the tool calls of one step (as the model's turn asked for them) and appends one tool message per call, in request order. */
export async function runStepCalls(shell: StepShell, turn: ModelTurn): Promise<void> {
  const { env } = shell;
  const planned = planStepCalls(env, turn, Date.now());
  const results = new Array<ToolResult>(planned.plans.length);
  for (const [number, batch] of planned.batches.entries()) {
    batchStarted(env, number, batch, Date.now());
    // One call at a time needs no pool: every promise made in workflow code costs a stack capture on replay.
    if (batch.concurrency === 1) for (const plan of batch.calls) results[plan.index] = await executeCall(shell, plan);
    else
      await runPool(
        batch.calls,
        batch.concurrency,
        async (plan) => void (results[plan.index] = await executeCall(shell, plan)),
      );
    batchEnded(env, number, Date.now());
  }
  answerDuplicates(env, planned, results, Date.now());
  const budget = outputBudgetRequest(env, planned.plans, results);
  if (!budget) return endStepCalls(env, planned, results);
  const writes = takeWrites(env.state);
  const { [ACTIVITY.applyOutputBudget]: applyOutputBudget } = workspaceActivities(
    env.input.toolTaskQueue,
    budget.summary,
  );
  const budgeted = await applyOutputBudget({ ...budget.request, writes: writes.content });
  writes.stored();
  endStepCalls(env, planned, withBudgetedResults(env, planned.plans, results, budgeted, Date.now()));
}

/**
 * One call, from its plan to its result: each await is one thing the call needs from outside the workflow, and each
 * runs in a scope an interrupt cancels (a call not started when the step was interrupted does not start).
 */
async function executeCall(shell: StepShell, plan: ExecutablePlan): Promise<ToolResult> {
  const { env, approvals, interrupts } = shell;
  const started = startCall(env, plan, Date.now());
  let need: CallNeed = started.need;
  const run = started.run as CallRun;
  const label = `${toolNameOf(plan)} ${plan.callId}`;
  for (;;) {
    const skipped = need.type === 'done' ? undefined : interrupts.stepInterrupted;
    if (skipped) need = onInterrupted(env, run, skipped, false, Date.now());
    switch (need.type) {
      case 'done':
        return need.result;
      case 'classify': {
        // Classification reads the workspace and needs a real shell parser, so it runs where the workspace is; its
        // result is recorded in history, so a replay sees the same decision.
        const { [ACTIVITY.classifyBash]: classifyBash } = workspaceActivities(need.taskQueue, need.summary);
        const { command, cwd, workspace } = need;
        const classified = await interrupts.run(label, () => classifyBash({ command, cwd, workspace }));
        need =
          'value' in classified
            ? onClassified(env, run, classified.value, Date.now())
            : onInterrupted(env, run, classified.interrupted, false, Date.now());
        break;
      }
      case 'baseline': {
        const checkpointWorkspace = checkpointActivity(need.taskQueue, need.summary);
        const { workspace, ignore } = need;
        let recorded: Interruptible<ContentKey> | undefined;
        try {
          recorded = await interrupts.run(label, () =>
            checkpointWorkspace({ workspace, ...(ignore ? { ignore } : {}) }),
          );
        } catch (error) {
          // Without it the call goes ahead; its own activity records the files before it.
          if (isCancellation(error)) throw error;
        }
        need =
          recorded && 'interrupted' in recorded
            ? onInterrupted(env, run, recorded.interrupted, false, Date.now())
            : onBaseline(env, run, recorded?.value, Date.now());
        break;
      }
      case 'approval': {
        const { request, timeoutMs } = need;
        const decided = await interrupts.run(`approval wait of ${label}`, () => approvals.request(request, timeoutMs));
        const decision = 'value' in decided ? decided.value : interruptedDecision(plan.callId, decided.interrupted);
        need = onDecision(env, run, decision, Date.now());
        shell.publish();
        break;
      }
      case 'child': {
        const start = childStart(env.state, env.input, workflowInfo().workflowId, need.index, need.args);
        if (!start.start) {
          need = onChildEnded(env, run, { refused: start.message }, Date.now());
          break;
        }
        const call = { callId: plan.callId, args: need.args };
        const ended = await interrupts.run(`sub-agent ${start.workflowId}`, () =>
          runChild(env.state, env.input, start, call, shell.publish),
        );
        need =
          'value' in ended
            ? onChildEnded(env, run, { workflowId: start.workflowId, ending: ended.value }, Date.now())
            : onInterrupted(env, run, ended.interrupted, true, Date.now());
        break;
      }
      case 'activity': {
        const activity = toolActivity(need.tool, need.policy, {
          summary: need.summary,
          taskQueue: need.taskQueue,
          local: need.local,
        });
        const { request } = need;
        try {
          const answered = await interrupts.run(label, () => activity(request));
          need =
            'value' in answered
              ? onActivityResult(env, run, answered.value, Date.now())
              : onInterrupted(env, run, answered.interrupted, true, Date.now());
        } catch (error) {
          if (isCancellation(error)) throw error;
          need = onActivityFailure(env, run, error, Date.now());
        }
        break;
      }
    }
  }
}

/** A bounded pool: at most `limit` calls in flight; results are placed by index, so completion order never matters. */
async function runPool<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await run(items[next++]!);
  });
  await Promise.all(lanes);
}
