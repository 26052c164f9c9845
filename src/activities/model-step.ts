// Node: the callModel activity as the workflow sees it. It stores what the workflow made, rebuilds the messages from
// the store, calls the model, and hands back a turn whose huge strings are stored and referred to by key, so history
// grows by the same few kilobytes a step however long the run and however large its files.
import type { ModelRequest, ModelTurn } from '../protocol/model.js';
import { applyCompaction, planCompaction, summaryRequest } from '../core/compaction.js';
import { approximateTokens, schemaTokens } from '../core/pricing.js';
import { MAX_ARGUMENT_NESTING, nestedDeeperThan } from '../core/arguments/parse-arguments.js';
import { transcriptOf } from '../protocol/transcript-ref.js';
import type { ResolveTools, ResolvedModelRequest } from './call-model.js';
import type { ContentKey } from '../protocol/content-key.js';
import type { ToolContract } from '../tools/define-tool.js';
import { requestTools } from './call-model.js';
import { checkFinalResult, outputSchemaValidator } from '../json-schema/output-schema.js';
import { activityAttempt } from './activity-context.js';
import type { TranscriptStore } from './transcript-store.js';
import { INLINE_STRING_BYTES } from './transcript-store.js';

export interface ModelStepDependencies {
  transcripts: TranscriptStore;
  callModel: (request: ResolvedModelRequest) => Promise<ModelTurn>;
  resolveTools: ResolveTools;
  /** The contracts of a task's MCP tools, by the key of their stored catalog. */
  mcpContracts?: (catalog: ContentKey) => Promise<ReadonlyMap<string, ToolContract>>;
}

/** Creates the `callModel` activity. */
export function createModelStep(deps: ModelStepDependencies): (request: ModelRequest) => Promise<ModelTurn> {
  const { transcripts } = deps;
  return async function callModel(request: ModelRequest): Promise<ModelTurn> {
    await transcripts.writeAll(request.writes);
    const messages = await transcripts.load(request.transcript);
    if (request.purpose === 'compaction') return compact(deps, request, messages);
    // A schema that cannot be used fails before the model is paid for.
    const validate = request.outputSchema ? outputSchemaValidator(request.outputSchema) : undefined;
    const mcpContracts = request.mcpCatalog ? await deps.mcpContracts?.(request.mcpCatalog) : undefined;
    const resolved: ResolvedModelRequest = {
      messages,
      toolNames: request.toolNames,
      ...(mcpContracts ? { mcpContracts } : {}),
      selection: request.selection,
      step: request.step,
      ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
      ...(request.outputSchema ? { outputSchema: request.outputSchema } : {}),
    };
    // Built once: the request sends them and the usage counts their tokens.
    resolved.tools = requestTools(resolved, deps.resolveTools);
    const answered = withUsageAccounting(resolved, await deps.callModel(resolved), deps.resolveTools);
    // Checked before the arguments are externalized: the result travels back whole, as the run's result.
    const finalResult = validate ? checkFinalResult(validate, answered.toolCalls) : undefined;
    const turn = await externalizeTurn(transcripts, { ...answered, ...(finalResult ? { finalResult } : {}) });
    return request.echoTranscript ? { ...turn, transcriptTail: messages.slice(request.messages?.length ?? 0) } : turn;
  };
}

/** The summarising call of a compaction, and the shorter transcript stored when the summary is usable. */
async function compact(
  deps: ModelStepDependencies,
  request: ModelRequest,
  messages: ResolvedModelRequest['messages'],
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
  const resolved: ResolvedModelRequest = {
    messages: summaryRequest(messages, plan),
    toolNames: [],
    selection: request.selection,
    step: request.step,
    purpose: 'compaction',
  };
  const turn = withUsageAccounting(resolved, await deps.callModel(resolved), deps.resolveTools);
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
 * Completes the usage the ledger needs: the tool list's tokens, the attempt that succeeded, and an estimate when the
 * endpoint reported nothing (some OpenAI-compatible servers do not), so a budget can never be bypassed by silence.
 */
function withUsageAccounting(request: ResolvedModelRequest, turn: ModelTurn, resolveTools: ResolveTools): ModelTurn {
  const tools = schemaTokens(request.tools ?? requestTools(request, resolveTools));
  const attempt = activityAttempt();
  if (turn.usage.totalTokens > 0)
    return { ...turn, usage: { ...turn.usage, schemaTokens: tools }, ...(attempt ? { attempt } : {}) };
  const promptTokens = approximateTokens(request.messages) + tools;
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
