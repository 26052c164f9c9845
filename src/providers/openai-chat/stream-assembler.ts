// Pure: no I/O, no clock. Turns Chat Completions stream chunks into one ModelTurn (docs/tools.md §15).
import type { FinishReason, ModelTurn, RawToolCall, Usage } from '../../protocol/model.js';
import type { StreamProgress } from '../model-provider.js';
import { OutputMeter } from '../output-cap.js';
import type { LiveDelta } from '../../live/live-event.js';
import type { MergeRule } from '../delta-runs.js';

/** One tool-call delta as compatible servers actually send it: every field optional, `index` sometimes missing. */
export interface StreamToolCallDelta {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: unknown } | null;
}

/** One `chat.completion.chunk`, typed loosely enough for servers that bend the OpenAI shape. */
export interface StreamChunk {
  model?: string | null;
  choices?: Array<{
    index?: number | null;
    delta?: { content?: string | null; refusal?: string | null; tool_calls?: StreamToolCallDelta[] | null } | null;
    finish_reason?: string | null;
  }> | null;
  usage?: { prompt_tokens?: number | null; completion_tokens?: number | null; total_tokens?: number | null } | null;
}

interface PendingCall {
  /** Its position among the turn's calls, as live output numbers it. */
  position: number;
  /** Its name was reported live. */
  announced: boolean;
  index: number | undefined;
  id?: string;
  name?: string;
  arguments: string;
}

const FINISH_REASONS: ReadonlyMap<string, FinishReason> = new Map([
  ['stop', 'stop'],
  ['tool_calls', 'tool_calls'],
  // The legacy single function call is still a tool call to the loop.
  ['function_call', 'tool_calls'],
  ['length', 'length'],
  ['content_filter', 'content_filter'],
]);

/** Accumulates stream chunks per tool-call index and yields the finished ModelTurn. */
export class StreamAssembler {
  private readonly calls: PendingCall[] = [];
  private content = '';
  private refusal = '';
  private finishReason: string | undefined;
  private usage: Usage | undefined;
  private model: string | undefined;
  private chunkCount = 0;

  /**
   * `fallbackModel` names the turn when no chunk carries a model; `meter` caps what the turn accumulates (unbounded
   * by default: the provider passes the worker's cap); `onDelta` hears each piece as it arrives.
   */
  constructor(
    private readonly fallbackModel: string,
    private readonly meter: OutputMeter = new OutputMeter(Number.POSITIVE_INFINITY),
    private readonly onDelta?: (delta: LiveDelta) => void,
  ) {}

  /** Adds one chunk (read from `events` stream events). Only choice 0 is read: the provider never asks for more. */
  push(chunk: StreamChunk, events = 1): void {
    this.chunkCount += events;
    if (chunk.model) this.model ??= chunk.model;
    if (chunk.usage) this.usage = toUsage(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta;
      if (typeof delta?.content === 'string') {
        this.meter.add(delta.content);
        this.content += delta.content;
        if (delta.content !== '') this.onDelta?.({ kind: 'text', text: delta.content });
      }
      if (typeof delta?.refusal === 'string') {
        this.meter.add(delta.refusal);
        this.refusal += delta.refusal;
        if (delta.refusal !== '') this.onDelta?.({ kind: 'text', text: delta.refusal });
      }
      for (const toolDelta of delta?.tool_calls ?? []) this.addToolDelta(toolDelta);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  /** Progress so far, small enough for a heartbeat. */
  progress(): StreamProgress {
    return { chunks: this.chunkCount, contentChars: this.content.length, toolCalls: this.calls.length };
  }

  /** The turn as received. A stream without a finish reason ended early; its unfinished calls are marked incomplete. */
  finish(): ModelTurn {
    const cutOff = this.finishReason === undefined || this.finishReason === 'length';
    const toolCalls = this.calls.map((call): RawToolCall => {
      const raw: RawToolCall = { complete: !cutOff || isWholeJsonObject(call.arguments) };
      if (call.id !== undefined) raw.id = call.id;
      if (call.name !== undefined) raw.name = call.name;
      raw.arguments = call.arguments;
      return raw;
    });
    const content = this.content !== '' ? this.content : this.refusal !== '' ? this.refusal : null;
    return {
      content,
      toolCalls,
      finishReason: this.finishReason === undefined ? 'other' : (FINISH_REASONS.get(this.finishReason) ?? 'other'),
      usage: this.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      model: this.model ?? this.fallbackModel,
    };
  }

  private addToolDelta(delta: StreamToolCallDelta): void {
    const call = this.callFor(delta);
    if (delta.id) {
      this.meter.replace(call.id, delta.id);
      call.id = delta.id;
    }
    // Some servers repeat the name on every delta: it replaces, never concatenates (as the OpenAI SDK does).
    if (delta.function?.name) {
      this.meter.replace(call.name, delta.function.name);
      call.name = delta.function.name;
    }
    const argumentsDelta = delta.function?.arguments;
    // A few servers send the arguments as an already-parsed object.
    const text =
      typeof argumentsDelta === 'string'
        ? argumentsDelta
        : argumentsDelta !== undefined && argumentsDelta !== null
          ? JSON.stringify(argumentsDelta)
          : undefined;
    if (call.name !== undefined && !call.announced) {
      call.announced = true;
      this.onDelta?.({ kind: 'tool_call', index: call.position, ...(call.id ? { id: call.id } : {}), name: call.name });
    }
    if (text !== undefined) {
      this.meter.add(text);
      call.arguments += text;
      if (text !== '') this.onDelta?.({ kind: 'tool_arguments', index: call.position, text });
    }
  }

  private callFor(delta: StreamToolCallDelta): PendingCall {
    const index = typeof delta.index === 'number' ? delta.index : undefined;
    const id = delta.id || undefined;
    const name = delta.function?.name || undefined;
    if (index !== undefined) {
      const existing = this.calls.findLast((call) => call.index === index);
      // Servers that number every call 0 still give each call its own id and name; a resent id is the same call.
      const startsAnother = existing?.id !== undefined && id !== undefined && existing.id !== id && name !== undefined;
      return existing && !startsAnother ? existing : this.open(index);
    }
    // Index-less deltas: a new id starts a call, a known id continues its call.
    const last = this.calls.at(-1);
    if (id !== undefined) {
      const sameId = this.calls.findLast((call) => call.id === id);
      if (sameId) return sameId;
      return last && last.id === undefined && last.arguments === '' ? last : this.open(undefined);
    }
    // No id either: a name starts a call unless it repeats the name of a call whose arguments are still open.
    if (!last) return this.open(undefined);
    const startsAnother =
      name !== undefined && last.name !== undefined && (last.name !== name || isWholeJsonObject(last.arguments));
    return startsAnother ? this.open(undefined) : last;
  }

  private open(index: number | undefined): PendingCall {
    const call: PendingCall = { position: this.calls.length, announced: false, index, arguments: '' };
    this.calls.push(call);
    return call;
  }
}

/**
 * Runs of chunks that differ only in their text, or only in one tool call's arguments, are one chunk with the texts
 * joined: a chunk of exactly one choice whose delta is text alone, or one numbered tool call with string arguments and
 * no text or refusal. The assembler appends text as it comes; it finds the same call for each such delta (by its
 * number; an id, when given, the same), replaces its id and name with the same ones and appends the arguments: joined
 * once, they come out the same.
 */
export const chatDeltaRule: MergeRule<StreamChunk> = {
  fieldOf(chunk) {
    const choice = chunk.choices?.length === 1 ? chunk.choices[0] : undefined;
    const delta = choice?.delta;
    if (!delta || delta.refusal) return undefined;
    if (typeof delta.content === 'string')
      return delta.tool_calls ? undefined : { key: 'content', text: delta.content };
    const call = delta.tool_calls?.length === 1 ? delta.tool_calls[0] : undefined;
    const text = call?.function?.arguments;
    return typeof call?.index === 'number' && typeof text === 'string' ? { key: 'arguments', text } : undefined;
  },
  withField(chunk, text) {
    const choice = chunk.choices![0]!;
    const delta = choice.delta!;
    if (typeof delta.content === 'string')
      return { ...chunk, choices: [{ ...choice, delta: { ...delta, content: text } }] };
    const call = delta.tool_calls![0]!;
    const tool_calls = [{ ...call, function: { ...call.function, arguments: text } }];
    return { ...chunk, choices: [{ ...choice, delta: { ...delta, tool_calls } }] };
  },
};

/** Assembles a whole recorded stream at once. */
export function assembleStream(chunks: Iterable<StreamChunk>, fallbackModel: string): ModelTurn {
  const assembler = new StreamAssembler(fallbackModel);
  for (const chunk of chunks) assembler.push(chunk);
  return assembler.finish();
}

function toUsage(usage: NonNullable<StreamChunk['usage']>): Usage {
  const promptTokens = usage.prompt_tokens ?? 0;
  const completionTokens = usage.completion_tokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: usage.total_tokens ?? promptTokens + completionTokens };
}

// Truncation removes the closing brace, so arguments that still parse as an object were received whole.
export function isWholeJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
