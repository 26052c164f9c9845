// Node: the scripted server's Anthropic Messages dialect (`POST /v1/messages`), what the `anthropic` provider speaks.
// It refuses, with the API's 400 and error shape, the requests the real API refuses, so a translation mistake fails
// a test instead of passing against a lenient stand-in.
import { SUMMARISER_PROMPT } from '../../core/compaction.js';
import type {
  DialectRequest,
  DialectRenderOptions,
  ScriptedDialect,
  StreamEvent,
} from '../../scripted-model/dialect.js';
import type { ScriptTurn } from '../../scripted-model/script.js';
import { scriptFinishReason, scriptUsage, splitText, wireToolCalls } from '../../scripted-model/script.js';

/** The most `cache_control` breakpoints one request may set. */
const MAX_CACHE_BREAKPOINTS = 4;

const STOP_REASONS = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
} as const;

type Block = Record<string, unknown> & { type?: unknown };
type Message = { role?: unknown; content?: unknown };

/** The one Messages dialect: it remembers nothing between requests. */
export const createScriptedDialect = (): ScriptedDialect => anthropicDialect;

export const anthropicDialect: ScriptedDialect = {
  path: '/v1/messages',
  read(body) {
    const problem = requestProblem(body);
    if (problem !== undefined) return { ok: false, status: 400, message: problem };
    const messages = body.messages as Message[];
    const lastResult = messages
      .flatMap((message) => blocksOf(message.content))
      .findLast((block) => block.type === 'tool_result');
    const request: DialectRequest = {
      ok: true,
      stream: body.stream === true,
      model: body.model as string,
      prompt: { system: body.system, messages },
      compaction: systemText(body.system).startsWith(SUMMARISER_PROMPT),
    };
    if (lastResult) request.lastToolResult = resultText(lastResult.content);
    return request;
  },
  render(turn, options) {
    return {
      ...messageShell(turn, options),
      content: contentBlocks(turn, options.turnNumber),
      stop_reason: STOP_REASONS[scriptFinishReason(turn)],
      usage: usageOf(turn, options.promptChars),
    };
  },
  renderEvents: (turn, options) => streamEvents(turn, options),
  errorBody: (status, _code, message) => ({
    type: 'error',
    error: { type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message },
  }),
  // The Messages API reports a failure inside a stream as an `error` event (`overloaded_error` most often).
  streamError: ({ code, message }) => ({
    event: 'error',
    data: { type: 'error', error: { type: code ?? 'api_error', message } },
  }),
};

// The API's error types by status (docs.anthropic.com/en/api/errors).
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** What the real API would reject in this body, first problem found; undefined when it would accept it. */
export function requestProblem(body: Record<string, unknown>): string | undefined {
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
    return 'max_tokens: Field required (a positive integer)';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  const messages = body.messages as Message[];
  for (const [index, message] of messages.entries()) {
    if (message.role === 'system')
      return `messages.${index}.role: Unexpected role "system". Use the top-level \`system\` parameter for a system prompt`;
    if (message.role !== 'user' && message.role !== 'assistant')
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    if (index === 0 && message.role !== 'user') return 'messages: the first message must use the "user" role';
    if (index > 0 && messages[index - 1]!.role === message.role)
      return `messages: roles must alternate between "user" and "assistant", but messages ${index - 1} and ${index} are both "${message.role}"`;
    const emptyText = blocksOf(message.content).findIndex(isEmptyText);
    if (emptyText !== -1) return `messages.${index}.content.${emptyText}: text content blocks must be non-empty`;
    const pairing = toolPairingProblem(messages, index);
    if (pairing !== undefined) return pairing;
  }
  if (blocksOf(body.system).some(isEmptyText)) return 'system: text content blocks must be non-empty';
  const tools = Array.isArray(body.tools) ? (body.tools as Block[]) : [];
  for (const [index, tool] of tools.entries()) {
    const schema = tool.input_schema as { type?: unknown } | undefined;
    if (typeof tool.name !== 'string' || tool.name === '') return `tools.${index}.name: Field required`;
    if (schema?.type !== 'object') return `tools.${index}.input_schema.type: Input should be 'object'`;
  }
  const marks = [body.system, ...messages.map((message) => message.content)]
    .flatMap(blocksOf)
    .concat(tools)
    .filter((block) => block.cache_control !== undefined && block.cache_control !== null).length;
  if (marks > MAX_CACHE_BREAKPOINTS)
    return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${marks}.`;
  const choice = body.tool_choice as { type?: unknown; name?: unknown } | undefined;
  if (choice?.type === 'tool' && !tools.some((tool) => tool.name === choice.name))
    return `tool_choice: the tool "${String(choice.name)}" is not among the request's tools`;
  return undefined;
}

// Every tool_use is answered by a tool_result in the next (user) message, and every tool_result answers a tool_use of
// the message before it.
function toolPairingProblem(messages: Message[], index: number): string | undefined {
  const message = messages[index]!;
  const blocks = blocksOf(message.content);
  if (message.role === 'assistant') {
    const answered = new Set(
      blocksOf(messages[index + 1]?.content)
        .filter((block) => block.type === 'tool_result')
        .map((block) => block.tool_use_id),
    );
    const unanswered = blocks.filter((block) => block.type === 'tool_use' && !answered.has(block.id));
    if (unanswered.length > 0)
      return `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.map((block) => String(block.id)).join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    return undefined;
  }
  const calls = new Set(
    blocksOf(messages[index - 1]?.content)
      .filter((block) => block.type === 'tool_use')
      .map((block) => block.id),
  );
  const orphan = blocks.find((block) => block.type === 'tool_result' && !calls.has(block.tool_use_id));
  if (orphan)
    return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(orphan.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
  return undefined;
}

/** A content value as blocks: a string is one text block; anything else not an array has none. */
function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content)
    ? (content as Block[]).filter((block) => typeof block === 'object' && block !== null)
    : [];
}

function isEmptyText(block: Block): boolean {
  return block.type === 'text' && (typeof block.text !== 'string' || block.text === '');
}

function systemText(system: unknown): string {
  return blocksOf(system)
    .map((block) => (typeof block.text === 'string' ? block.text : ''))
    .join('');
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocksOf(content)
    .map((block) => (typeof block.text === 'string' ? block.text : JSON.stringify(block)))
    .join('');
}

function messageShell(turn: ScriptTurn, options: DialectRenderOptions) {
  return {
    id: `msg_scripted_${options.turnNumber}`,
    type: 'message',
    role: 'assistant',
    model: options.model,
    stop_sequence: null,
  };
}

/** The turn's content blocks: its thinking, its text, then its tool calls. */
function contentBlocks(turn: ScriptTurn, turnNumber: number): Block[] {
  const blocks: Block[] = [];
  if (turn.thinking)
    blocks.push({ type: 'thinking', thinking: turn.thinking.text, signature: turn.thinking.signature });
  if (turn.content) blocks.push({ type: 'text', text: turn.content, citations: null });
  for (const call of wireToolCalls(turn, turnNumber))
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parsedArguments(call.function.arguments),
    });
  return blocks;
}

// A scripted malformed argument string cannot be an `input` object; the stream still sends it verbatim.
function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** Usage in Anthropic's terms: input_tokens excludes the cached part, which is counted apart. */
function usageOf(turn: ScriptTurn, promptChars: number) {
  const { prompt_tokens: prompt, completion_tokens: completion } = scriptUsage(turn, promptChars);
  const cacheRead = turn.usage?.cache_read_tokens ?? 0;
  const cacheWrite = turn.usage?.cache_write_tokens ?? 0;
  return {
    input_tokens: Math.max(0, prompt - cacheRead - cacheWrite),
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
    output_tokens: completion,
  };
}

/**
 * The SSE events of a turn: message_start, each block's start / deltas (text and tool input in `chunk_size` pieces) /
 * stop, then message_delta with the stop reason and usage, and message_stop. With `truncate_stream` the events stop
 * halfway through the last call's input (or the text): no block stop, no stop reason, no message_stop.
 */
function streamEvents(turn: ScriptTurn, options: DialectRenderOptions): StreamEvent[] {
  const usage = usageOf(turn, options.promptChars);
  const event = (type: string, data: Record<string, unknown>): StreamEvent => ({
    event: type,
    data: { type, ...data },
  });
  const events: StreamEvent[] = [
    event('message_start', {
      message: {
        ...messageShell(turn, options),
        content: [],
        stop_reason: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  ];
  const truncate = turn.truncate_stream === true;
  const calls = wireToolCalls(turn, options.turnNumber);
  let index = 0;
  const block = (start: Block, deltas: Block[], cut = false): void => {
    events.push(event('content_block_start', { index, content_block: start }));
    for (const delta of deltas) events.push(event('content_block_delta', { index, delta }));
    if (!cut) events.push(event('content_block_stop', { index }));
    index += 1;
  };
  if (turn.thinking) {
    block({ type: 'thinking', thinking: '', signature: '' }, [
      ...splitText(turn.thinking.text, turn.chunk_size).map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: turn.thinking.signature },
    ]);
  }
  const text = turn.content ?? '';
  if (text !== '') {
    const cut = truncate && calls.length === 0;
    const sent = cut ? text.slice(0, Math.floor(text.length / 2)) : text;
    const deltas = splitText(sent, turn.chunk_size).map((piece) => ({ type: 'text_delta', text: piece }));
    block({ type: 'text', text: '', citations: null }, deltas, cut);
    if (cut) return events;
  }
  for (const [position, call] of calls.entries()) {
    const cut = truncate && position === calls.length - 1;
    const input = call.function.arguments;
    const sent = cut ? input.slice(0, Math.floor(input.length / 2)) : input;
    const deltas = splitText(sent, turn.chunk_size).map((piece) => ({ type: 'input_json_delta', partial_json: piece }));
    block({ type: 'tool_use', id: call.id, name: call.function.name, input: {} }, deltas, cut);
    if (cut) return events;
  }
  if (truncate) return events;
  events.push(
    event('message_delta', {
      delta: { stop_reason: STOP_REASONS[scriptFinishReason(turn)], stop_sequence: null },
      usage,
    }),
    event('message_stop', {}),
  );
  return events;
}
