// Node: tool results into the content store. Each tool activity stores its tool message once and hands the workflow
// the key and a summary; layer 2 of the output budget reads the turn's messages back when they add up to too much.
import { budgetStepResults, spillFileName, spillRelativePath } from '../core/output-budget.js';
import type { ApplyOutputBudgetInput, ApplyOutputBudgetResult } from '../protocol/output-budget.js';
import type { Envelope } from '../protocol/envelope.js';
import { serializeEnvelope } from '../protocol/envelope.js';
import type { ChatMessage } from '../protocol/model.js';
import type { ToolOutcome } from '../protocol/tool-outcome.js';
import { outcomeOf, withFallbackNote } from '../protocol/tool-outcome.js';
import type { MessageRef } from '../protocol/transcript-ref.js';
import type { ToolExecutor } from './executors/types.js';
import { runTool } from './run-tool.js';
import { spillForBudget, withUnsavedSpill } from './spill.js';
import { waitingOutStoreOutage } from './store-wait.js';
import type { ElsewhereResult, StoredToolResult, ToolActivityInput } from '../protocol/tool-activity.js';
import type { TranscriptStore } from './transcript-store.js';
import { realWorkspaceRoot } from './workspace.js';
import type { Checkpointer } from './checkpoint/checkpointer.js';
import { checkpointAfter, checkpointBefore } from './checkpoint/call-checkpoint.js';

/** A tool activity whose arguments may refer to stored content and whose result is stored as the tool message. */
export function storedToolActivity(
  name: string,
  executor: ToolExecutor,
  transcripts: TranscriptStore,
  options: { hostToolQueue: string | undefined; checkpointer: Checkpointer; dataDir?: string | undefined },
): (request: ToolActivityInput) => Promise<StoredToolResult | ElsewhereResult> {
  const { hostToolQueue, checkpointer, dataDir } = options;
  return async (request) => {
    if (request.onlyOnHost !== undefined && request.onlyOnHost !== hostToolQueue) return { elsewhere: true };
    const expanded: ToolActivityInput = {
      ...request,
      input: await transcripts.expand(request.input),
      paramsInput: await transcripts.expand(request.paramsInput),
    };
    const before = await checkpointBefore(checkpointer, request);
    const result = await runTool(name, executor, expanded, {
      store: transcripts.store,
      ...(dataDir ? { dataDir } : {}),
    });
    const envelope = request.fallback ? withFallbackNote(result.envelope, request.fallback) : result.envelope;
    // A file tool names the one file it changed (its read-state key: links resolved).
    const changed = result.readStateUpdate?.key;
    const [stored, checkpoint] = await Promise.all([
      storeToolMessage(transcripts, request.callId, envelope),
      checkpointAfter(checkpointer, transcripts.store, request, before, changed),
    ]);
    return {
      call: { callId: request.callId, turn: request.turn, index: request.index },
      ...stored,
      ...(result.readStateUpdate ? { readStateUpdate: result.readStateUpdate } : {}),
      ...(checkpoint ? { checkpoint } : {}),
    };
  };
}

async function storeToolMessage(
  transcripts: TranscriptStore,
  callId: string,
  envelope: Envelope,
): Promise<{ message: MessageRef; outcome: ToolOutcome }> {
  // The tool has run: its result waits for the store rather than the tool running again on the next attempt.
  const message = await waitingOutStoreOutage(() =>
    transcripts.putMessage({
      role: 'tool',
      tool_call_id: callId,
      content: serializeEnvelope(envelope),
    }),
  );
  return { message, outcome: outcomeOf(envelope) };
}

/**
 * Creates the `applyOutputBudget` activity (docs/tools.md §9 layer 2): compresses the largest results and spills them
 * in full.
 */
export function createApplyOutputBudget(
  transcripts: TranscriptStore,
): (input: ApplyOutputBudgetInput) => Promise<ApplyOutputBudgetResult> {
  return async (input) => {
    await transcripts.writeAll(input.writes);
    const envelopes = await Promise.all(
      input.results.map(async (result) => {
        const message = JSON.parse(await transcripts.text(result.key)) as Extract<ChatMessage, { role: 'tool' }>;
        return JSON.parse(message.content) as Envelope;
      }),
    );
    const target = (index: number) => ({
      turn: input.turn,
      index,
      toolName: input.results[index]!.toolName,
      callId: input.results[index]!.callId,
      suffix: 'result' as const,
    });
    const budgeted = budgetStepResults(envelopes, {
      pathFor: (index) => spillRelativePath(input.taskId, spillFileName(target(index))),
      alreadyCompressed: input.results.map((result) => result.compressed),
    });
    const root = await realWorkspaceRoot(input.workspace);
    const items = await Promise.all(
      budgeted.items.map(async (item) => {
        const spilled = await spillForBudget(
          { root, taskId: input.taskId, ...target(item.index) },
          item.rendered,
          transcripts.store,
        );
        const envelope = withUnsavedSpill(withFullOutputKey(budgeted.envelopes[item.index]!, spilled.key), spilled);
        return {
          index: item.index,
          ...(await storeToolMessage(transcripts, input.results[item.index]!.callId, envelope)),
          event: { reason: item.reason, raw_bytes: item.raw_bytes, visible_bytes: item.visible_bytes },
        };
      }),
    );
    return { items };
  };
}

function withFullOutputKey(envelope: Envelope, key: string | undefined): Envelope {
  const truncation = envelope.data.truncation as Record<string, unknown> | undefined;
  if (!key || !truncation) return envelope;
  return { ...envelope, data: { ...envelope.data, truncation: { ...truncation, full_output_key: key } } };
}
