// Node: the scripted server's OpenAI Responses dialect (`POST /v1/responses`), what the `openai-responses` provider
// speaks. It refuses what the real API refuses for a stateless client (`store: false`, the whole input every time),
// including a function call sent back without the reasoning item that came before it.
import { SUMMARISER_PROMPT } from '../../core/compaction.js';
import type {
  DialectRenderOptions,
  DialectRequest,
  ScriptedDialect,
  StreamEvent,
} from '../../scripted-model/dialect.js';
import { scriptFinishReason, scriptUsage, splitText, wireToolCalls } from '../../scripted-model/script.js';
import type { ScriptTurn } from '../../scripted-model/script.js';

/** What a reasoning item's `encrypted_content` starts with: the server can tell its own from anything else. */
const SEAL = 'scripted-reasoning:';

type Item = Record<string, unknown>;

/** A function call this server returned after a reasoning item: the items the API will want to see together. */
interface ReasonedCall {
  itemId: string;
  reasoningId: string;
}

/** A Responses dialect with its own memory of the reasoning it returned (one per server). */
export function createScriptedDialect(): ScriptedDialect {
  const reasonedCalls = new Map<string, ReasonedCall>();
  const remember = (turn: ScriptTurn, turnNumber: number): void => {
    if (turn.reasoning === undefined) return;
    wireToolCalls(turn, turnNumber).forEach((call, index) =>
      reasonedCalls.set(call.id, { itemId: functionItemId(turnNumber, index), reasoningId: reasoningId(turnNumber) }),
    );
  };
  return {
    path: '/v1/responses',
    read: (body) => readRequest(body, reasonedCalls),
    render(turn, options) {
      remember(turn, options.turnNumber);
      return responseObject(turn, options, outputItems(turn, options.turnNumber));
    },
    renderEvents(turn, options) {
      remember(turn, options.turnNumber);
      return responseEvents(turn, options);
    },
    errorBody: (_status, code, message) => ({
      error: { message, type: 'invalid_request_error', param: null, code },
    }),
    streamError: ({ code, message }, sent) => ({
      event: 'error',
      data: { type: 'error', code: code ?? 'server_error', message, param: null, sequence_number: sent },
    }),
  };
}

function refuse(message: string): DialectRequest {
  return { ok: false, status: 400, message };
}

function readRequest(body: Record<string, unknown>, reasonedCalls: ReadonlyMap<string, ReasonedCall>): DialectRequest {
  if (typeof body.model !== 'string' || body.model === '') return refuse("Missing required parameter: 'model'.");
  const input = body.input;
  if (typeof input !== 'string' && !Array.isArray(input))
    return refuse("Invalid type for 'input': expected a string or an array of input items.");
  const toolProblem = checkTools(body.tools, body.tool_choice);
  if (toolProblem) return refuse(toolProblem);
  const items: Item[] = typeof input === 'string' ? [{ role: 'user', content: input }] : (input as Item[]);
  const inputProblem = checkItems(items, body.store === false, reasonedCalls);
  if (inputProblem) return refuse(inputProblem);
  const lastOutput = items.findLast((item) => item.type === 'function_call_output')?.output;
  const first = items[0];
  const instructions = typeof body.instructions === 'string' ? body.instructions : undefined;
  const systemText = instructions ?? (first?.role === 'system' ? first.content : undefined);
  return {
    ok: true,
    stream: body.stream === true,
    model: body.model,
    prompt: instructions === undefined ? input : [instructions, input],
    ...(lastOutput !== undefined
      ? { lastToolResult: typeof lastOutput === 'string' ? lastOutput : JSON.stringify(lastOutput) }
      : {}),
    compaction: typeof systemText === 'string' && systemText.startsWith(SUMMARISER_PROMPT),
  };
}

/** Tools must be in the Responses shape (flat, not Chat's nested `function`); a named tool choice must exist. */
function checkTools(tools: unknown, toolChoice: unknown): string | undefined {
  if (tools !== undefined && !Array.isArray(tools)) return "Invalid type for 'tools': expected an array.";
  const names: string[] = [];
  for (const [index, tool] of ((tools ?? []) as Item[]).entries()) {
    if (tool.type !== 'function') return `Invalid value for 'tools[${index}].type': expected 'function'.`;
    if (typeof tool.name !== 'string' || tool.name === '') return `Missing required parameter: 'tools[${index}].name'.`;
    if (tool.parameters !== undefined && (typeof tool.parameters !== 'object' || tool.parameters === null))
      return `Invalid type for 'tools[${index}].parameters': expected an object.`;
    if ('function' in tool) return `Unknown parameter: 'tools[${index}].function'.`;
    names.push(tool.name);
  }
  if (toolChoice === undefined || ['auto', 'required', 'none'].includes(toolChoice as string)) return undefined;
  const choice = toolChoice as Item | null;
  if (typeof choice !== 'object' || choice === null || choice.type !== 'function' || typeof choice.name !== 'string')
    return "Invalid value for 'tool_choice': expected 'auto', 'required', 'none' or {type: 'function', name}.";
  if (!names.includes(choice.name))
    return `Tool choice '${choice.name}' not found in 'tools' parameter: the function is not among the tools sent.`;
  return undefined;
}

/** Function calls and their outputs paired by call id; reasoning items whole, and present where they are needed. */
function checkItems(items: Item[], stateless: boolean, reasonedCalls: ReadonlyMap<string, ReasonedCall>) {
  const seenReasoning = new Set<string>();
  const calls = new Set<string>();
  const awaitingOutput: string[] = [];
  for (const item of items) {
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === 'reasoning') {
      const id = String(item.id);
      if (typeof item.encrypted_content !== 'string') {
        if (stateless)
          return `Item '${id}' of type 'reasoning' has no 'encrypted_content': with 'store' false it cannot be looked up.`;
      } else if (!item.encrypted_content.startsWith(SEAL)) {
        return `The encrypted content for item '${id}' could not be verified.`;
      }
      seenReasoning.add(id);
    } else if (type === 'function_call') {
      const callId = String(item.call_id);
      const reasoned = reasonedCalls.get(callId);
      if (reasoned && !seenReasoning.has(reasoned.reasoningId))
        return `Item '${reasoned.itemId}' of type 'function_call' was provided without its required 'reasoning' item: '${reasoned.reasoningId}'.`;
      calls.add(callId);
      awaitingOutput.push(callId);
    } else if (type === 'function_call_output') {
      const callId = String(item.call_id);
      if (!calls.has(callId)) return `No tool call found for function call output with call_id ${callId}.`;
      const waiting = awaitingOutput.indexOf(callId);
      if (waiting !== -1) awaitingOutput.splice(waiting, 1);
    } else if (type === 'message' && item.role === 'user' && awaitingOutput.length > 0) {
      return `No tool output found for function call ${awaitingOutput[0]}.`;
    }
  }
  return awaitingOutput.length > 0 ? `No tool output found for function call ${awaitingOutput[0]}.` : undefined;
}

function reasoningId(turnNumber: number): string {
  return `rs_scripted_${turnNumber}`;
}

function functionItemId(turnNumber: number, index: number): string {
  return `fc_scripted_${turnNumber}_${index}`;
}

function messageId(turnNumber: number): string {
  return `msg_scripted_${turnNumber}`;
}

/** The reasoning item of a turn: its text as the summary, and an opaque seal the server recognises when it returns. */
function reasoningItem(turn: ScriptTurn, turnNumber: number): Item {
  const sealed = Buffer.from(`${turnNumber}:${turn.reasoning ?? ''}`).toString('base64');
  return {
    id: reasoningId(turnNumber),
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: turn.reasoning ?? '' }],
    encrypted_content: `${SEAL}${sealed}`,
  };
}

function messageItem(text: string, turnNumber: number, status = 'completed'): Item {
  return {
    id: messageId(turnNumber),
    type: 'message',
    role: 'assistant',
    status,
    content: text === '' ? [] : [{ type: 'output_text', text, annotations: [] }],
  };
}

function functionItems(turn: ScriptTurn, turnNumber: number): Item[] {
  return wireToolCalls(turn, turnNumber).map((call, index) => ({
    id: functionItemId(turnNumber, index),
    type: 'function_call',
    status: 'completed',
    call_id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
  }));
}

/** The output items of a whole turn, in the API's order: reasoning, the message, the function calls. */
function outputItems(turn: ScriptTurn, turnNumber: number): Item[] {
  return [
    ...(turn.reasoning !== undefined ? [reasoningItem(turn, turnNumber)] : []),
    ...(turn.content !== undefined ? [messageItem(turn.content, turnNumber)] : []),
    ...functionItems(turn, turnNumber),
  ];
}

/** Responses usage: the scripted or estimated counts, with the cached and reasoning parts. */
function responsesUsage(turn: ScriptTurn, promptChars: number): Item {
  const usage = scriptUsage(turn, promptChars);
  const reasoning = turn.usage?.reasoning_tokens ?? Math.ceil((turn.reasoning ?? '').length / 4);
  // Reasoning is part of the output; an estimate adds it, a scripted completion count already includes it.
  const output = turn.usage ? usage.completion_tokens : usage.completion_tokens + reasoning;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: Math.min(turn.usage?.cached_tokens ?? 0, usage.prompt_tokens) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: usage.prompt_tokens + output,
  };
}

function responseObject(turn: ScriptTurn, options: DialectRenderOptions, output: Item[] | undefined): Item {
  const done = output !== undefined;
  const incomplete = scriptFinishReason(turn) === 'length';
  return {
    id: `resp_scripted_${options.turnNumber}`,
    object: 'response',
    created_at: options.created,
    status: !done ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    model: options.model,
    output: output ?? [],
    incomplete_details: done && incomplete ? { reason: 'max_output_tokens' } : null,
    error: null,
    store: false,
    usage: done ? responsesUsage(turn, options.promptChars) : null,
  };
}

/**
 * The events of a streamed turn, numbered in order. With `truncate_stream` they stop halfway through the last call's
 * arguments (or the content, for a turn without calls), before any `.done` of that item and the final event.
 */
function responseEvents(turn: ScriptTurn, options: DialectRenderOptions): StreamEvent[] {
  const events: StreamEvent[] = [];
  const emit = (type: string, fields: Item): void => {
    events.push({ event: type, data: { type, sequence_number: events.length, ...fields } });
  };
  const { turnNumber } = options;
  const truncate = turn.truncate_stream === true;
  const calls = functionItems(turn, turnNumber);
  emit('response.created', { response: responseObject(turn, options, undefined) });
  emit('response.in_progress', { response: responseObject(turn, options, undefined) });
  const output: Item[] = [];
  const add = (item: Item, opening: Item): number => {
    emit('response.output_item.added', { output_index: output.length, item: opening });
    output.push(item);
    return output.length - 1;
  };
  if (turn.reasoning !== undefined) {
    const item = reasoningItem(turn, turnNumber);
    const index = add(item, { id: item.id, type: 'reasoning', summary: [] });
    // The summary streams as the API streams it: one summary part, its text in deltas.
    const summary = { item_id: item.id, output_index: index, summary_index: 0 };
    const text = turn.reasoning;
    emit('response.reasoning_summary_part.added', { ...summary, part: { type: 'summary_text', text: '' } });
    for (const piece of splitText(text, turn.chunk_size))
      emit('response.reasoning_summary_text.delta', { ...summary, delta: piece });
    emit('response.reasoning_summary_text.done', { ...summary, text });
    emit('response.reasoning_summary_part.done', { ...summary, part: { type: 'summary_text', text } });
    emit('response.output_item.done', { output_index: index, item });
  }
  if (turn.content !== undefined) {
    const id = messageId(turnNumber);
    const index = add(messageItem(turn.content, turnNumber), messageItem('', turnNumber, 'in_progress'));
    const part = { item_id: id, output_index: index, content_index: 0 };
    emit('response.content_part.added', { ...part, part: { type: 'output_text', text: '', annotations: [] } });
    const cut = truncate && calls.length === 0;
    const sent = cut ? turn.content.slice(0, Math.floor(turn.content.length / 2)) : turn.content;
    for (const piece of splitText(sent, turn.chunk_size))
      emit('response.output_text.delta', { ...part, delta: piece, logprobs: [] });
    if (cut) return events;
    emit('response.output_text.done', { ...part, text: turn.content, logprobs: [] });
    emit('response.content_part.done', { ...part, part: { type: 'output_text', text: turn.content, annotations: [] } });
    emit('response.output_item.done', { output_index: index, item: messageItem(turn.content, turnNumber) });
  }
  calls.forEach((call, position) => {
    const index = add(call, { ...call, status: 'in_progress', arguments: '' });
    const text = String(call.arguments);
    const cut = truncate && position === calls.length - 1;
    const sent = cut ? text.slice(0, Math.floor(text.length / 2)) : text;
    for (const piece of splitText(sent, turn.chunk_size))
      emit('response.function_call_arguments.delta', { item_id: call.id, output_index: index, delta: piece });
    if (cut) return;
    emit('response.function_call_arguments.done', { item_id: call.id, output_index: index, arguments: text });
    emit('response.output_item.done', { output_index: index, item: call });
  });
  if (truncate) return events;
  const final = responseObject(turn, options, output);
  emit(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final });
  return events;
}
