// Workflow-safe and deterministic: the ReAct loop as a Temporal workflow, one iteration per step.
// Decisions come from core/ (pure); every side effect is an activity; time and ids come from Temporal's APIs.
import {
  ApplicationFailure,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { referencedKeys } from '../protocol/content-key.js';
import type { ModelTurn } from '../protocol/model.js';
import { costGate, hasCostLimit, initialCostLimits, onCostDecision } from '../core/run/cost-gate.js';
import { currentDetails, publishedValues } from '../core/run/published.js';
import {
  afterModelFailure,
  recordCompaction,
  compactionRequest,
  completeWithAnswer,
  continueRun,
  describeFailure,
  markFailed,
  modelChain,
  modelRequest,
  needsCompaction,
  recordModelFallback,
  recordModelTurn,
  runEndingFailure,
  shouldContinueAsNew,
} from '../core/run/steps.js';
import { recordMcpTools } from '../core/run/mcp-tools.js';
import { hasQueuedMessages, keepAnswerForMessages, queueMessage, readQueuedMessages } from '../core/run/inbox.js';
import { sendMessage, userMessage } from '../protocol/run-control.js';
import { ControlDesk } from './run-control.js';
import { installInterrupt, Interrupter } from './interrupt.js';
import { installPause, stayPaused } from './pause.js';
import { isPauseRequested } from '../core/run/pause.js';
import { handOverWhileWaiting, isWaitingForRequest, stepLimit, waitForRequest } from '../core/run/session.js';
import { Session, modelCallLabel } from './session.js';
import { completeWithResult, keepTextAnswer, turnOutcome } from '../core/run/tool-choice.js';
import type { AgentInput, AgentState } from '../core/state.js';
import type { AgentResult } from '../protocol/run-report.js';
import { initialState, toResult } from '../core/state.js';
import { systemPrompt } from '../core/system-prompt.js';
import { takeWrites } from '../protocol/transcript-ref.js';
import { startProfile, stepTools } from '../core/tool-selection/step-tools.js';
import { createTaskRegistry } from '../tools/task-registry.js';
import { callModel, listTaskTools, storeContent } from './activities.js';
import { ApprovalBook } from './approvals.js';
import { refusedDecisions, signedDecisionGuard } from './decision-guard.js';
import type { AgentStateView, BreakerView } from '../protocol/run-messages.js';
import { stateQuery, storeRootsQuery, transcriptQuery } from '../protocol/run-messages.js';
import { AGENT_SEARCH_ATTRIBUTES } from '../protocol/search-attributes.js';
import type { StepShell } from './tool-step.js';
import { stepBoundaryObservers } from './step-boundary.js';
import { runStepCalls } from './tool-step.js';
import { createChildReporter, installChildReports } from './sub-agent.js';
import { createRunMetrics } from './run-metrics.js';
import { offersTask } from '../core/sub-agents/limits.js';
import { treeUsage } from '../core/sub-agents/ledger.js';

/**
 * Runs a task: model step, tool calls, repeat until the model answers (a structured run: until its FinalResult matches
 * the schema) or the step limit is reached.
 */
export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  const state: AgentState = input.resume ?? initialState(workflowInfo().workflowId, systemPrompt(input), input.task);
  // A sub-agent starts with the approval keys its parent had remembered.
  if (!input.resume && input.grantedApprovals) state.approvals = [...input.grantedApprovals];
  // What is pending is published the moment it changes (the publisher reads the book; the book reports changes).
  // A run its operator signed takes only signed decisions; the others are refused and recorded in its progress.
  // A sub-agent's approvals are decided at its root, by ids prefixed with its place in the tree.
  const approvals: ApprovalBook = new ApprovalBook(
    () => publish(),
    input.authorization ? signedDecisionGuard(state, () => publish()) : undefined,
    input.parent ? { idPrefix: `${input.parent.path}/`, subjectWorkflowId: input.parent.rootWorkflowId } : undefined,
  );
  approvals.install();
  approvals.attachDescendants(installChildReports(state, () => publish()));
  const controls = new ControlDesk(state, input.authorization !== undefined, () => publish());
  controls.install({
    kind: 'message',
    update: sendMessage,
    signal: userMessage,
    description:
      'A message for the model, read at the next step boundary: {"id", "text", "sent_by"?, "signature"?}. Each id is applied once; a run its operator signed takes only messages its operator\'s CLI signed.',
    apply: (request) => ({ queued: queueMessage(state, request, Date.now()) }),
  });
  const interrupts = new Interrupter();
  installInterrupt(controls, state, interrupts);
  installPause(controls, state);
  setHandler(stateQuery, (afterSeq?: number) => view(state, input, approvals, afterSeq), {
    description:
      'The run now: status, step, pending approvals, breakers, usage, and the progress entries after the given sequence number.',
  });
  setHandler(transcriptQuery, () => state.transcript, {
    description: 'The transcript as content-store keys (durable-agent history and the codec endpoint expand them).',
  });
  // Content not stored yet is no root: it is not in the store to keep.
  setHandler(storeRootsQuery, () => referencedKeys(JSON.stringify({ ...state, pendingWrites: {} })), {
    description: 'The content-store keys this run still needs (durable-agent gc keeps them).',
  });
  const session = new Session(state, input);
  const firstStep = state.step;
  const publish = createPublisher(state, input, approvals);
  // A continued run starts with the search attributes of the run it continues, which say `continued`.
  if (input.resume) publish();

  try {
    if (!input.resume) {
      // An unknown profile fails the run before any server is started for it.
      const unknownProfile = startProfile(state, input);
      if (unknownProfile !== undefined) return fail(state, input, unknownProfile);
      // The worker's function tools are recorded once per task, so every replay and continuation sees the same tools;
      // so are the MCP servers' tools (after the function tools, which keep a name both claim). Both are asked at once.
      const [functionTools, mcpTools] = await listTaskTools(input);
      state.functionTools = functionTools;
      recordMcpTools(state, mcpTools, Date.now());
      state.budget = initialCostLimits(input);
    }
    const shell: StepShell = {
      env: { state, input, registry: createTaskRegistry(state.functionTools, state.mcp?.tools, offersTask(input)) },
      approvals,
      publish,
      interrupts,
    };
    while (isWaitingForRequest(state) || state.step < stepLimit(state, input)) {
      // A session's wait: it ends idle, or hands over to a new run (still waiting), or the next request begins.
      const waited = isWaitingForRequest(state) ? await session.next(publish) : undefined;
      if (waited === 'idle') {
        publish.now();
        return toResult(state, input);
      }
      for (const observe of stepBoundaryObservers) observe(input, state);
      if (
        waited === 'continue' ||
        shouldContinueAsNew(state, input, firstStep, workflowInfo().continueAsNewSuggested)
      ) {
        await condition(allHandlersFinished);
        const next = continueRun(state);
        const resume = waited === 'continue' ? handOverWhileWaiting(next) : next;
        publish.now();
        return await continueAsNew<typeof agentWorkflow>({ ...input, resume });
      }
      // A step without a pause, a budget or a long transcript awaits nothing for them: every promise made in workflow
      // code has its stack captured by the SDK, which is most of what a step costs to replay.
      if (isPauseRequested(state)) await stayPaused(state, publish);
      readQueuedMessages(state, Date.now());
      if (hasCostLimit(state)) await passBudgetGate(shell);
      if (needsCompaction(state, input)) await compact(shell);
      state.step += 1;
      publish();
      const turn = await interrupts.modelCall(state.step, () => callModelWithFallbacks(shell));
      if (turn === undefined) continue; // interrupted: the turn is dropped, the interrupt's note is read next
      const outcome = turnOutcome(state, input, turn);
      if (outcome.kind === 'fail') {
        await flushWrites(state);
        return fail(state, input, outcome.message);
      }
      if (outcome.kind === 'answer' && hasQueuedMessages(state)) {
        keepAnswerForMessages(state, turn.content);
        continue;
      }
      if (outcome.kind === 'answer' || outcome.kind === 'result') {
        if (outcome.kind === 'result') completeWithResult(state, turn, outcome.value);
        else completeWithAnswer(state, turn.content);
        await flushWrites(state);
        if (input.session) {
          waitForRequest(state, input);
          continue;
        }
        publish.now();
        return toResult(state, input);
      }
      if (outcome.kind === 'text') keepTextAnswer(state, turn.content);
      else await runStepCalls(shell, turn);
    }
    await flushWrites(state);
    return fail(state, input, `Reached the step limit (${input.maxSteps}) before the model finished.`);
  } catch (error) {
    if (isCancellation(error)) {
      state.status = 'cancelled';
      publish.now();
      throw error;
    }
    if (error instanceof ContinueAsNew) throw error;
    if (error instanceof ApplicationFailure && error.type === 'AgentRunFailed') {
      publish.now();
      throw error;
    }
    const ending = runEndingFailure(error);
    if (ending === undefined) throw error; // a bug in workflow code: the workflow task fails and is retried
    try {
      fail(state, input, ending);
    } finally {
      publish.now();
    }
  }
}

/** Stores what the last step made, so a finished run's transcript is whole in the store. */
async function flushWrites(state: AgentState): Promise<void> {
  const writes = takeWrites(state);
  if (Object.keys(writes.content).length === 0) return;
  await storeContent(writes.content);
  writes.stored();
}

/**
 * The model call of a step. One that fails for good goes to the next selection of the run's chain; one rejected as too
 * long for the model compacts the transcript and is made again (core/run/steps `afterModelFailure`).
 */
async function callModelWithFallbacks(shell: StepShell): Promise<ModelTurn> {
  const { state, input } = shell.env;
  const tools = stepTools(shell.env, Date.now());
  const started = Date.now();
  const chain = modelChain(input);
  let index = 0;
  let compactedThisStep = false;
  for (;;) {
    const selection = chain[index]!;
    const writes = takeWrites(state);
    try {
      const request = modelRequest(state, input, selection, tools.names, writes.content, tools.selection);
      const turn = await callModel(request, modelCallLabel(request));
      writes.stored();
      recordModelTurn(state, input, turn, Date.now() - started);
      return turn;
    } catch (error) {
      if (isCancellation(error)) throw error;
      const next = afterModelFailure(error, { compactedThisStep, hasNextModel: index + 1 < chain.length });
      if (next === 'fail') throw error;
      if (next === 'compact') {
        compactedThisStep = true;
        await compact(shell);
        continue;
      }
      recordModelFallback(state, selection, chain[++index]!, describeFailure(error), Date.now());
    }
  }
}

/**
 * Summarises the older turns with a model call (an activity) when the transcript nears the context budget. The activity
 * reads the transcript, plans the cut (core/compaction) and stores the shorter transcript; the workflow takes its key.
 */
async function compact({ env }: StepShell): Promise<void> {
  const { state, input } = env;
  const started = Date.now();
  const writes = takeWrites(state);
  const { request, summary } = compactionRequest(state, input, writes.content);
  const result = await callModel(request, summary);
  writes.stored();
  recordCompaction(state, input, result, Date.now() - started, Date.now());
}

/** Before a step: the cost gate (core/run/cost-gate), and the operator's answer when it asks. */
async function passBudgetGate({ env, approvals }: StepShell): Promise<void> {
  const { state, input } = env;
  let gate = costGate(state, input, Date.now());
  if (gate.action === 'ask') {
    const decision = await approvals.request(gate.request, gate.timeoutMs);
    gate = onCostDecision(state, input, decision.decision === 'approve', gate);
  }
  if (gate.action === 'stop') fail(state, input, gate.message);
}

/** Publishes what operators see: `publish()` once the current workflow task's code has run, `publish.now()` at once. */
interface Publisher {
  (): void;
  now(): void;
}

/**
 * Keeps the run findable and readable in the Web UI: the current details line, and the search attributes, written
 * only when what they show changed and at most once per workflow task (an upsert is a history event and a visibility
 * write). `publish()` defers the write past the code that runs in the same activation — parallel calls asking for
 * approval, a decision and its outcome — so they make one upsert; an ending writes at once, before its final command.
 */
function createPublisher(state: AgentState, input: AgentInput, approvals: ApprovalBook): Publisher {
  let lastDetails = '';
  let lastAttributes = '';
  let scheduled = false;
  const report = createChildReporter(state, input);
  const emitMetrics = createRunMetrics(state, input, approvals.list());
  // Settled once: each deferral chains two reactions on it instead of making a third promise, and every promise made
  // in workflow code has its stack captured by the SDK.
  const settled = Promise.resolve();
  const now = (): void => {
    scheduled = false;
    const pending = approvals.list();
    report?.(pending);
    emitMetrics(pending);
    const details = currentDetails(state, input, pending);
    if (details !== lastDetails) setCurrentDetails(details);
    lastDetails = details;
    if (!input.searchAttributes) return;
    const values = publishedValues(state, input, pending);
    const snapshot = JSON.stringify(values);
    if (snapshot === lastAttributes) return;
    lastAttributes = snapshot;
    upsertSearchAttributes([
      { key: AGENT_SEARCH_ATTRIBUTES.status, value: values.status },
      { key: AGENT_SEARCH_ATTRIBUTES.step, value: values.step },
      { key: AGENT_SEARCH_ATTRIBUTES.pendingApprovals, value: values.pendingApprovals },
      { key: AGENT_SEARCH_ATTRIBUTES.costUsd, value: values.costUsd },
      ...(values.model ? [{ key: AGENT_SEARCH_ATTRIBUTES.model, value: values.model }] : []),
    ]);
  };
  const publish = (): void => {
    if (scheduled) return;
    scheduled = true;
    // Workflow code resumed in this activation runs in the microtasks queued before this one; the activation ends
    // only when no microtask is left, so the write still belongs to this workflow task.
    void settled
      .then(() => undefined)
      .then(() => {
        if (scheduled) now();
      });
  };
  return Object.assign(publish, { now });
}

function fail(state: AgentState, input: AgentInput, message: string): never {
  markFailed(state, message);
  throw ApplicationFailure.create({
    type: 'AgentRunFailed',
    message,
    nonRetryable: true,
    details: [toResult(state, input)],
  });
}

function view(state: AgentState, input: AgentInput, approvals: ApprovalBook, afterSeq = 0): AgentStateView {
  const breakers: Record<string, BreakerView> = {};
  for (const [name, breaker] of Object.entries(state.breakers)) {
    breakers[name] = {
      state: breaker.state,
      failures: breaker.failures,
      ...(breaker.opened_at !== undefined ? { openedAt: breaker.opened_at } : {}),
      ...(breaker.last_error !== undefined ? { lastError: breaker.last_error } : {}),
    };
  }
  const refused = refusedDecisions(state);
  return {
    taskId: state.taskId,
    status: state.status,
    step: state.step,
    maxSteps: input.maxSteps,
    toolCalls: state.toolCalls,
    usage: state.usage,
    answer: state.answer ?? null,
    ...(state.error ? { error: state.error } : {}),
    ...(state.lastTool ? { lastTool: state.lastTool } : {}),
    progress: state.progress.filter((entry) => entry.seq > afterSeq),
    pendingApprovals: approvals.list(),
    breakers,
    ...(state.profile ? { profile: state.profile } : {}),
    ...(refused.length > 0 ? { refusedDecisions: refused } : {}),
    ...(state.conversation ? { conversation: state.conversation } : {}),
    ...(state.children ? { children: Object.values(state.children), totalUsage: treeUsage(state) } : {}),
    ...(input.parent ? { parent: input.parent } : {}),
  };
}
