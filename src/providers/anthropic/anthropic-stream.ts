// Pure: no I/O, no clock. Turns the Anthropic Messages stream events into one ModelTurn.
import type { RawMessageStreamEvent, StopReason, Usage } from '@anthropic-ai/sdk/resources/messages';
import type { FinishReason, ModelTurn, ProviderItem, RawToolCall, Usage as TurnUsage } from '../../protocol/model.js';
import { ANTHROPIC_PROVIDER } from './anthropic-request.js';
import type { StreamProgress } from '../model-provider.js';
import { OutputMeter } from '../output-cap.js';
import type { LiveDelta } from '../../live/live-event.js';
import { isWholeJsonObject } from '../openai-chat/stream-assembler.js';
import type { MergeRule } from '../delta-runs.js';

/** One content block as it is being received, by its stream index. */
type PendingBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; json: string; startInput: unknown }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  // Blocks this adapter has no use for (server tools' results): received, then left out.
  | { type: 'other' };

/** The usage counts both usage shapes (message_start's and message_delta's) carry, any of them possibly null. */
interface UsageFields {
  input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens?: number | null;
  output_tokens_details?: Usage['output_tokens_details'];
}

const FINISH_REASONS: ReadonlyMap<string, FinishReason> = new Map<StopReason, FinishReason>([
  ['end_turn', 'stop'],
  ['stop_sequence', 'stop'],
  ['tool_use', 'tool_calls'],
  ['max_tokens', 'length'],
  ['refusal', 'content_filter'],
]);

/** Anthropic's stop reason as the loop knows it; `pause_turn` and anything newer are `other`. */
export function toFinishReason(stopReason: string | null | undefined): FinishReason {
  return (stopReason && FINISH_REASONS.get(stopReason)) || 'other';
}

/** Accumulates the events of one streamed message and yields the finished ModelTurn. */
export class AnthropicStreamAssembler {
  private readonly blocks = new Map<number, PendingBlock>();
  private stopReason: string | undefined;
  private usage: UsageFields = {};
  private model: string | undefined;
  private eventCount = 0;
  private contentChars = 0;

  /**
   * `fallbackModel` names the turn when the stream never says which model answered; `meter` caps what the turn
   * accumulates (unbounded by default: the provider passes the worker's cap); `onDelta` hears each piece as it arrives
   * (thinking as reasoning; a tool call is numbered by its position among the answer's calls).
   */
  constructor(
    private readonly fallbackModel: string,
    private readonly meter: OutputMeter = new OutputMeter(Number.POSITIVE_INFINITY),
    private readonly onDelta?: (delta: LiveDelta) => void,
  ) {}

  /** Adds one event (read from `events` stream events: a merged run of deltas counts as all of them). */
  push(event: RawMessageStreamEvent, events = 1): void {
    this.eventCount += events;
    switch (event.type) {
      case 'message_start':
        this.model = event.message.model || undefined;
        this.addUsage(event.message.usage);
        break;
      case 'content_block_start':
        // A block may start with content of its own (text, a tool's whole input, thinking).
        this.meter.addItem(event.content_block);
        this.blocks.set(event.index, pendingBlock(event.content_block));
        this.announce(event.index);
        break;
      case 'content_block_delta':
        this.addDelta(event.index, event.delta);
        break;
      case 'message_delta':
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        this.addUsage(event.usage);
        break;
      default:
        // content_block_stop and message_stop carry nothing to keep; a missing stop reason marks a cut-off stream.
        break;
    }
  }

  progress(): StreamProgress {
    const toolCalls = [...this.blocks.values()].filter((block) => block.type === 'tool_use').length;
    return { chunks: this.eventCount, contentChars: this.contentChars, toolCalls };
  }

  /** The turn as received. Without a stop reason the stream ended early: its unfinished calls are incomplete. */
  finish(): ModelTurn {
    const ordered = [...this.blocks.entries()].sort(([left], [right]) => left - right).map(([, block]) => block);
    const cutOff = this.stopReason === undefined || this.stopReason === 'max_tokens';
    const text = ordered.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const toolCalls = ordered.flatMap((block): RawToolCall[] => {
      if (block.type !== 'tool_use') return [];
      // A call without input deltas has its whole input in its start event (`{}` for a call without parameters).
      const args = block.json !== '' ? block.json : JSON.stringify(block.startInput ?? {});
      return [{ id: block.id, name: block.name, arguments: args, complete: !cutOff || isWholeJsonObject(args) }];
    });
    const providerItems = ordered.flatMap((block): ProviderItem[] => {
      if (block.type === 'thinking')
        return [
          {
            provider: ANTHROPIC_PROVIDER,
            item: { type: 'thinking', thinking: block.thinking, signature: block.signature },
          },
        ];
      if (block.type === 'redacted_thinking')
        return [{ provider: ANTHROPIC_PROVIDER, item: { type: 'redacted_thinking', data: block.data } }];
      return [];
    });
    return {
      content: text !== '' ? text : null,
      toolCalls,
      finishReason: toFinishReason(this.stopReason),
      usage: this.turnUsage(),
      model: this.model ?? this.fallbackModel,
      ...(providerItems.length > 0 ? { providerItems } : {}),
    };
  }

  // What a block brings at its start: a tool call's name, the first text or thinking (usually empty).
  private announce(index: number): void {
    const block = this.blocks.get(index);
    if (block?.type === 'tool_use')
      this.onDelta?.({ kind: 'tool_call', index: this.toolPosition(index), id: block.id, name: block.name });
    else if (block?.type === 'text' && block.text !== '') this.onDelta?.({ kind: 'text', text: block.text });
    else if (block?.type === 'thinking' && block.thinking !== '')
      this.onDelta?.({ kind: 'reasoning', text: block.thinking });
  }

  // The stream's block index counts text and thinking too; live output numbers the calls alone.
  private toolPosition(index: number): number {
    return [...this.blocks.entries()].filter(([key, block]) => key < index && block.type === 'tool_use').length;
  }

  private addDelta(index: number, delta: Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>['delta']) {
    const block = this.blocks.get(index);
    if (!block) return;
    if (delta.type === 'text_delta' && block.type === 'text') {
      this.meter.add(delta.text);
      block.text += delta.text;
      this.contentChars += delta.text.length;
      this.onDelta?.({ kind: 'text', text: delta.text });
    } else if (delta.type === 'input_json_delta' && block.type === 'tool_use') {
      this.meter.add(delta.partial_json);
      block.json += delta.partial_json;
      if (delta.partial_json !== '')
        this.onDelta?.({ kind: 'tool_arguments', index: this.toolPosition(index), text: delta.partial_json });
    } else if (delta.type === 'thinking_delta' && block.type === 'thinking') {
      this.meter.add(delta.thinking);
      block.thinking += delta.thinking;
      this.onDelta?.({ kind: 'reasoning', text: delta.thinking });
    } else if (delta.type === 'signature_delta' && block.type === 'thinking') {
      this.meter.add(delta.signature);
      block.signature += delta.signature;
    }
  }

  // message_start reports the input and the first output tokens, message_delta the running totals: the latest wins.
  private addUsage(usage: UsageFields | null | undefined): void {
    if (!usage) return;
    for (const [key, value] of Object.entries(usage) as [keyof UsageFields, unknown][]) {
      if (value !== null && value !== undefined) (this.usage as Record<string, unknown>)[key] = value;
    }
  }

  // The API counts cached input apart from input_tokens; the project's prompt count includes it, as OpenAI's does.
  private turnUsage(): TurnUsage {
    const cacheRead = this.usage.cache_read_input_tokens ?? 0;
    const cacheWrite = this.usage.cache_creation_input_tokens ?? 0;
    const promptTokens = (this.usage.input_tokens ?? 0) + cacheRead + cacheWrite;
    const completionTokens = this.usage.output_tokens ?? 0;
    const thinking = this.usage.output_tokens_details?.thinking_tokens;
    return {
      promptTokens,
      completionTokens,
      totalTokens: promptTokens + completionTokens,
      cachedTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      ...(typeof thinking === 'number' ? { reasoningTokens: thinking } : {}),
    };
  }
}

type BlockDelta = Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>['delta'];

// The string each delta kind appends to its block.
const DELTA_KEYS: Partial<Record<BlockDelta['type'], string>> = {
  text_delta: 'text',
  input_json_delta: 'partial_json',
  thinking_delta: 'thinking',
  signature_delta: 'signature',
};

/**
 * Runs of content_block_delta events that differ only in their string (same block, same kind) are one event with the
 * strings joined: the assembler appends each to its block, so joined once they come out the same.
 */
export const anthropicDeltaRule: MergeRule<RawMessageStreamEvent> = {
  fieldOf(event) {
    if (event.type !== 'content_block_delta') return undefined;
    const key = DELTA_KEYS[event.delta.type];
    const text = key ? (event.delta as unknown as Record<string, unknown>)[key] : undefined;
    return key && typeof text === 'string' ? { key, text } : undefined;
  },
  withField(event, text) {
    if (event.type !== 'content_block_delta') return event;
    const key = DELTA_KEYS[event.delta.type]!;
    return { ...event, delta: { ...event.delta, [key]: text } as BlockDelta };
  },
};

function pendingBlock(block: Extract<RawMessageStreamEvent, { type: 'content_block_start' }>['content_block']) {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text } satisfies PendingBlock;
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id,
        name: block.name,
        json: '',
        startInput: block.input,
      } satisfies PendingBlock;
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature } satisfies PendingBlock;
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data } satisfies PendingBlock;
    default:
      return { type: 'other' } satisfies PendingBlock;
  }
}
