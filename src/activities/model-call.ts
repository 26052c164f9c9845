// Node: the callModel activity. It stores what the workflow made, rebuilds the messages from the store, resolves the
// request's tool names to their contracts once and the run's selection to a provider (the key never leaves the
// worker), calls the model with heartbeats and cancellation, and hands back a turn whose huge strings are stored and
// referred to by key: history carries tool names and references only, and grows by the same few kilobytes a step
// however long the run and however large its files.
import { CancelledFailure } from '@temporalio/common';
import type { ChatMessage, ModelRequest, ModelTurn } from '../protocol/model.js';
import type { ContentKey } from '../protocol/content-key.js';
import { transcriptOf } from '../protocol/transcript-ref.js';
import { applyCompaction, planCompaction, summaryRequest } from '../core/compaction.js';
import { approximateTokens, schemaTokens } from '../core/pricing.js';
import { MAX_ARGUMENT_NESTING, nestedDeeperThan } from '../core/arguments/parse-arguments.js';
import type { ToolContract } from '../tools/define-tool.js';
import type { ProviderRequest } from '../providers/model-provider.js';
import type { LiveDelta } from '../live/live-event.js';
import { functionTools } from '../providers/model-provider.js';
import type { ProviderResolver } from '../providers/resolve-provider.js';
import { currentActivityContext } from './activity-context.js';
import { keepAlive } from './keep-alive.js';
import { LeftRunningCalls } from './left-running-calls.js';
import { activityAttempt } from './activity-context.js';
import { toModelFailure } from './failures.js';
import { checkFinalResult, outputSchemaValidator } from '../json-schema/output-schema.js';
import type { TranscriptStore } from './transcript-store.js';
import { INLINE_STRING_BYTES } from './transcript-store.js';
import { waitingOutStoreOutage } from './store-wait.js';
import type { LiveChannel } from '../live/live-channel.js';
import { livePublisherFor } from './live-publishing.js';
import type { ModelCallSpan } from './telemetry.js';
import { startModelCallSpan } from './telemetry.js';

/** The contracts of the named tools: the task registry's, else the task's MCP tools' (by their stored catalog). */
export type ResolveTools = (names: string[], mcp?: ReadonlyMap<string, ToolContract>) => ToolContract[];

/** What the activity needs from the worker. */
export interface ModelCallDependencies {
  transcripts: TranscriptStore;
  resolveProvider: ProviderResolver;
  resolveTools: ResolveTools;
  /** The contracts of a task's MCP tools, by the key of their stored catalog. */
  mcpContracts?: (catalog: ContentKey) => Promise<ReadonlyMap<string, ToolContract>>;
  /** Where the call's output goes as it streams (live output); none when omitted. */
  live?: LiveChannel;
  /** Prompts and outputs in the call's span (off by default: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT). */
  captureContent?: boolean;
}

/** What the model is asked, before the provider is chosen: the request's own fields with its messages and tools. */
type ModelAsk = Omit<ProviderRequest, 'model' | 'signal' | 'onProgress' | 'onDelta'>;

/** Creates the `callModel` activity; it also runs outside an activity (no heartbeats, no cancellation then). */
export function createModelCallActivity(deps: ModelCallDependencies): (request: ModelRequest) => Promise<ModelTurn> {
  const { transcripts } = deps;
  // A call whose attempt the server gave up on (it restarted mid-call) is finished for the next attempt, not made again.
  const leftRunning = new LeftRunningCalls<ModelTurn>();
  return async function callModel(request: ModelRequest): Promise<ModelTurn> {
    // What the workflow made (the transcript's new nodes) is checked and readable here at once and stored while the
    // model answers; the call returns only once it is stored, for the next step may run on another worker.
    const written = transcripts.stage(request.writes);
    written.catch(() => undefined); // awaited below, unless the call fails first
    const turn = await answer(request);
    // The model has answered (and been paid): a failed write waits for the store rather than the model being asked again.
    await waitingOutStoreOutage(() => written.catch(() => transcripts.writeAll(request.writes)));
    return turn;
  };

  async function answer(request: ModelRequest): Promise<ModelTurn> {
    const messages = await transcripts.load(request.transcript);
    if (request.purpose === 'compaction') return compact(deps, request, messages);
    // A schema that cannot be used fails before the model is paid for.
    const validate = request.outputSchema ? outputSchemaValidator(request.outputSchema) : undefined;
    const mcpContracts = request.mcpCatalog ? await deps.mcpContracts?.(request.mcpCatalog) : undefined;
    const ask: ModelAsk = {
      messages,
      tools: deps.resolveTools(request.toolNames, mcpContracts),
      ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
      ...(request.outputSchema ? { outputSchema: request.outputSchema } : {}),
    };
    // Rendered once before the call (a contract whose schema cannot be exported fails here, unclassified): the usage
    // counts their tokens.
    const tools = schemaTokens(functionTools(ask));
    const answered = await leftRunning.run(currentActivityContext(), (signal) =>
      complete(deps, request, ask, tools, signal),
    );
    // Checked before the arguments are externalized: the result travels back whole, as the run's result.
    const finalResult = validate ? checkFinalResult(validate, answered.toolCalls) : undefined;
    // The model has answered (and been paid): its answer waits for the store rather than being asked for again.
    const turn = await waitingOutStoreOutage(() =>
      externalizeTurn(transcripts, { ...answered, ...(finalResult ? { finalResult } : {}) }),
    );
    return request.echoTranscript ? { ...turn, transcriptTail: messages.slice(request.messages?.length ?? 0) } : turn;
  }
}

/**
 * One call of the run's provider, heartbeating while it streams; every error leaves classified (toModelFailure), a
 * cancelled one as Temporal's CancelledFailure. The usage is completed for the ledger (`toolTokens`: the tool list's).
 */
async function complete(
  deps: ModelCallDependencies,
  request: ModelRequest,
  ask: ModelAsk,
  toolTokens: number,
  signal: AbortSignal,
): Promise<ModelTurn> {
  const context = currentActivityContext();
  // The stream's latest progress rides on the timed heartbeats, which also cover the silence before the first token.
  const heartbeat = keepAlive(context, { step: request.step });
  const live = context && deps.live ? livePublisherFor(deps.live, context, request) : undefined;
  let span: ModelCallSpan | undefined;
  try {
    const { provider, model } = await deps.resolveProvider(request.selection);
    span = startModelCallSpan(
      {
        provider: request.selection.provider ?? 'default',
        model,
        step: request.step,
        purpose: request.purpose ?? 'step',
      },
      deps.captureContent ?? false,
    );
    const traced = span;
    live?.publish({ kind: 'start', model });
    const turn = await provider.complete({
      ...ask,
      model,
      signal,
      headers: traced.headers,
      onProgress: (progress) => {
        traced.firstToken();
        heartbeat.update({ step: request.step, ...progress });
      },
      ...(live ? { onDelta: (delta: LiveDelta) => live.publish(delta) } : {}),
    });
    live?.publish({ kind: 'end', finishReason: turn.finishReason });
    const accounted = withUsageAccounting(ask.messages, turn, toolTokens);
    traced.ended(accounted, { input: ask.messages });
    return accounted;
  } catch (error) {
    span?.failed(error);
    if (signal.aborted) {
      live?.publish({ kind: 'failed', error: 'cancelled' });
      throw signal.reason instanceof CancelledFailure ? signal.reason : new CancelledFailure('Model call cancelled');
    }
    const failure = toModelFailure(error);
    live?.publish({ kind: 'failed', error: failure.message });
    throw failure;
  } finally {
    heartbeat.stop();
    // Flushed in the background: the call's result never waits for its live output.
    void live?.close();
  }
}

/** The summarising call of a compaction, and the shorter transcript stored when the summary is usable. */
async function compact(
  deps: ModelCallDependencies,
  request: ModelRequest,
  messages: ChatMessage[],
): Promise<ModelTurn> {
  const plan = planCompaction(messages);
  if (!plan) {
    const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    return {
      content: null,
      toolCalls: [],
      finishReason: 'other',
      usage,
      model: request.selection.model ?? '',
      skipped: true,
    };
  }
  const signal = currentActivityContext()?.cancellationSignal ?? new AbortController().signal;
  const turn = await complete(deps, request, { messages: summaryRequest(messages, plan), tools: [] }, 0, signal);
  if (!turn.content?.trim()) return { ...turn, content: null };
  const compacted = applyCompaction(messages, plan, turn.content);
  const refs = await Promise.all(
    compacted.map(async (message) => ({ ...(await deps.transcripts.putMessage(message)), role: message.role })),
  );
  const pending: Record<string, string> = {};
  const transcript = transcriptOf(refs, pending);
  await deps.transcripts.writeAll(pending);
  return {
    ...turn,
    // The summary lives in the transcript now; the turn itself need not carry it through history again.
    content: null,
    compacted: {
      transcript,
      summarisedMessages: plan.end - plan.start,
      tokensBefore: request.transcript.tokens,
      tokensAfter: transcript.tokens,
    },
  };
}

/**
 * A turn fit for history: the answer and the string values of each tool call's arguments, when huge (a 3 MB file the
 * model writes), are stored and replaced by references that the tool activity and the next request expand again.
 * Arguments that are not valid JSON stay as they are: the workflow's repair must see them, and Temporal's external
 * storage takes any payload that is still too large.
 */
async function externalizeTurn(transcripts: TranscriptStore, turn: ModelTurn): Promise<ModelTurn> {
  const toolCalls = await Promise.all(
    turn.toolCalls.map(async (call) => {
      if (!call.arguments || call.arguments.length <= INLINE_STRING_BYTES) return call;
      let parsed: unknown;
      try {
        parsed = JSON.parse(call.arguments);
      } catch {
        return call;
      }
      // Arguments nested past what any tool accepts stay as they are (the workflow refuses them): walking them would
      // overflow the stack, fail the activity, and make every retry ask the model again.
      if (nestedDeeperThan(parsed, MAX_ARGUMENT_NESTING)) return call;
      return { ...call, arguments: JSON.stringify(await transcripts.externalize(parsed)) };
    }),
  );
  return { ...turn, content: await transcripts.externalize(turn.content), toolCalls };
}

/**
 * Completes the usage the ledger needs: the tool list's tokens (`tools`, counted on the function descriptions whichever
 * API the run names), the attempt that succeeded, and an estimate when the endpoint reported nothing (some
 * OpenAI-compatible servers do not), so a budget can never be bypassed by silence.
 */
function withUsageAccounting(messages: ChatMessage[], turn: ModelTurn, tools: number): ModelTurn {
  const attempt = activityAttempt();
  if (turn.usage.totalTokens > 0)
    return { ...turn, usage: { ...turn.usage, schemaTokens: tools }, ...(attempt ? { attempt } : {}) };
  const promptTokens = approximateTokens(messages) + tools;
  const completionTokens = approximateTokens(turn.content ?? '') + approximateTokens(turn.toolCalls);
  return {
    ...turn,
    usage: {
      promptTokens,
      completionTokens,
      totalTokens: promptTokens + completionTokens,
      schemaTokens: tools,
      estimated: true,
    },
    ...(attempt ? { attempt } : {}),
  };
}
