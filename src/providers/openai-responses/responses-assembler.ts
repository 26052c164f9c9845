// Pure: no I/O, no clock. Turns the events of a streamed OpenAI Responses answer into one ModelTurn.
import { APIError } from 'openai';
import type { FinishReason, ModelTurn, ProviderItem, RawToolCall, Usage } from '../../protocol/model.js';
import type { StreamProgress } from '../model-provider.js';
import { OutputMeter } from '../output-cap.js';
import type { LiveDelta } from '../../live/live-event.js';

/** The provider name its reasoning items are kept under in the transcript. */
export const RESPONSES_PROVIDER = 'openai-responses';

/** One output item as the stream reports it; only the fields read here are typed. */
interface OutputItem {
  id?: string;
  type?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  [key: string]: unknown;
}

/** The response object carried by `response.created`, `.completed`, `.incomplete` and `.failed`. */
interface ResponseObject {
  model?: string;
  status?: string;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
  usage?: {
    input_tokens?: number;
    input_tokens_details?: { cached_tokens?: number } | null;
    output_tokens?: number;
    output_tokens_details?: { reasoning_tokens?: number } | null;
    total_tokens?: number;
  } | null;
}

/** One Responses stream event, typed loosely: the fields of the events this assembler reads. */
export interface ResponsesStreamEvent {
  type: string;
  item?: OutputItem;
  item_id?: string;
  output_index?: number;
  delta?: string;
  arguments?: string;
  response?: ResponseObject;
  code?: string | null;
  message?: string;
}

interface PendingCall {
  itemId: string | undefined;
  outputIndex: number | undefined;
  callId?: string;
  name?: string;
  arguments: string;
  /** The API said the call's arguments are complete (`.arguments.done` or `output_item.done`). */
  done: boolean;
}

// Codes of a failed response that a later attempt can get past; the others name a problem with the request.
const TRANSIENT_FAILURES: ReadonlySet<string> = new Set([
  'server_error',
  'rate_limit_exceeded',
  'vector_store_timeout',
]);

/** Accumulates the events of one streamed response and yields the finished ModelTurn. */
export class ResponsesAssembler {
  private readonly calls: PendingCall[] = [];
  private readonly providerItems: ProviderItem[] = [];
  private content = '';
  private refusal = '';
  private model: string | undefined;
  private final: ResponseObject | undefined;
  private eventCount = 0;

  /**
   * `fallbackModel` names the turn when no event carries a model; `meter` caps what the turn accumulates (unbounded by
   * default: the provider passes the worker's cap); `onDelta` hears each piece as it arrives.
   */
  constructor(
    private readonly fallbackModel: string,
    private readonly meter: OutputMeter = new OutputMeter(Number.POSITIVE_INFINITY),
    private readonly onDelta?: (delta: LiveDelta) => void,
  ) {}

  /** Adds one event; a failed response or an `error` event throws. */
  push(event: ResponsesStreamEvent): void {
    this.eventCount += 1;
    if (event.response?.model) this.model = event.response.model;
    switch (event.type) {
      case 'response.output_item.added':
        if (event.item?.type === 'function_call') this.open(event);
        break;
      case 'response.function_call_arguments.delta':
        if (typeof event.delta === 'string') {
          this.meter.add(event.delta);
          const call = this.callFor(event);
          call.arguments += event.delta;
          this.onDelta?.({ kind: 'tool_arguments', index: this.calls.indexOf(call), text: event.delta });
        }
        break;
      case 'response.reasoning_summary_text.delta':
        // The summary itself arrives whole in the reasoning item; the deltas are for live output only.
        if (typeof event.delta === 'string') {
          this.meter.add(event.delta);
          this.onDelta?.({ kind: 'reasoning', text: event.delta });
        }
        break;
      case 'response.function_call_arguments.done': {
        const call = this.callFor(event);
        if (typeof event.arguments === 'string') {
          this.meter.replace(call.arguments, event.arguments);
          call.arguments = event.arguments;
        }
        call.done = true;
        break;
      }
      case 'response.output_text.delta':
        if (typeof event.delta === 'string') {
          this.meter.add(event.delta);
          this.content += event.delta;
          this.onDelta?.({ kind: 'text', text: event.delta });
        }
        break;
      case 'response.refusal.delta':
        if (typeof event.delta === 'string') {
          this.meter.add(event.delta);
          this.refusal += event.delta;
          this.onDelta?.({ kind: 'text', text: event.delta });
        }
        break;
      case 'response.output_item.done':
        this.itemDone(event);
        break;
      case 'response.completed':
      case 'response.incomplete':
        this.final = event.response ?? {};
        break;
      case 'response.failed':
        throw failedResponse(event.response?.error);
      case 'error':
        throw new APIError(undefined, { code: event.code, message: event.message }, event.message, undefined);
    }
  }

  /** Progress so far, small enough for a heartbeat. */
  progress(): StreamProgress {
    return { chunks: this.eventCount, contentChars: this.content.length, toolCalls: this.calls.length };
  }

  /** The turn as received. Without a final response event the stream ended early: unfinished calls are incomplete. */
  finish(): ModelTurn {
    const finished = this.final?.status === 'completed';
    const toolCalls = this.calls.map((call): RawToolCall => {
      const raw: RawToolCall = { complete: finished || call.done || isWholeJsonObject(call.arguments) };
      if (call.callId !== undefined) raw.id = call.callId;
      if (call.name !== undefined) raw.name = call.name;
      raw.arguments = call.arguments;
      return raw;
    });
    const content = this.content !== '' ? this.content : this.refusal !== '' ? this.refusal : null;
    return {
      content,
      toolCalls,
      finishReason: this.finishReason(toolCalls.length > 0),
      usage: toUsage(this.final?.usage),
      model: this.model ?? this.fallbackModel,
      ...(this.providerItems.length > 0 ? { providerItems: this.providerItems } : {}),
    };
  }

  private finishReason(hasCalls: boolean): FinishReason {
    if (this.final === undefined) return 'other';
    if (this.final.status === 'completed') return hasCalls ? 'tool_calls' : 'stop';
    const reason = this.final.incomplete_details?.reason;
    if (reason === 'max_output_tokens') return 'length';
    if (reason === 'content_filter') return 'content_filter';
    return 'other';
  }

  private open(event: ResponsesStreamEvent): void {
    const item = event.item!;
    this.meter.add(item.call_id);
    this.meter.add(item.name);
    this.meter.add(item.arguments);
    this.calls.push({
      itemId: item.id,
      outputIndex: event.output_index,
      ...(item.call_id !== undefined ? { callId: item.call_id } : {}),
      ...(item.name !== undefined ? { name: item.name } : {}),
      arguments: item.arguments ?? '',
      done: false,
    });
    if (item.name !== undefined)
      this.onDelta?.({
        kind: 'tool_call',
        index: this.calls.length - 1,
        ...(item.call_id ? { id: item.call_id } : {}),
        name: item.name,
      });
  }

  // Deltas name their item by id and by position; a delta for an item never announced still gets a call of its own.
  private callFor(event: ResponsesStreamEvent): PendingCall {
    const known = this.calls.find((call) =>
      event.item_id !== undefined ? call.itemId === event.item_id : call.outputIndex === event.output_index,
    );
    if (known) return known;
    const call: PendingCall = { itemId: event.item_id, outputIndex: event.output_index, arguments: '', done: false };
    this.calls.push(call);
    return call;
  }

  private itemDone(event: ResponsesStreamEvent): void {
    const item = event.item;
    if (item?.type === 'reasoning') {
      // Kept exactly as returned: the API decrypts `encrypted_content` when the item is sent back.
      this.meter.addItem(item);
      this.providerItems.push({ provider: RESPONSES_PROVIDER, item: { ...item } });
      return;
    }
    if (item?.type !== 'function_call') return;
    const call = this.callFor({ ...event, item_id: item.id });
    if (item.call_id !== undefined) {
      this.meter.replace(call.callId, item.call_id);
      call.callId = item.call_id;
    }
    if (item.name !== undefined) {
      this.meter.replace(call.name, item.name);
      call.name = item.name;
    }
    if (typeof item.arguments === 'string') {
      this.meter.replace(call.arguments, item.arguments);
      call.arguments = item.arguments;
    }
    call.done = true;
  }
}

function toUsage(usage: ResponseObject['usage']): Usage {
  const promptTokens = usage?.input_tokens ?? 0;
  const completionTokens = usage?.output_tokens ?? 0;
  const cached = usage?.input_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage?.output_tokens_details?.reasoning_tokens ?? 0;
  // Zero counts are left out: every field of a turn is written to workflow history.
  return {
    promptTokens,
    completionTokens,
    totalTokens: usage?.total_tokens ?? promptTokens + completionTokens,
    ...(cached > 0 ? { cachedTokens: cached } : {}),
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}

/** A failed response: an APIError (retried) when the cause is transient, else a 400-like error that is not. */
function failedResponse(error: ResponseObject['error']): APIError {
  const code = error?.code ?? 'server_error';
  const message = `The response failed (${code}): ${error?.message ?? 'no message'}`;
  // Without a status, toModelFailure retries; a request the API cannot answer is a bad request, not retried.
  const status = TRANSIENT_FAILURES.has(code) ? undefined : 400;
  return new APIError(status, { code, message }, message, undefined);
}

// Truncation removes the closing brace, so arguments that still parse as an object were received whole.
function isWholeJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
