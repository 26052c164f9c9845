// Node: the script format of the scripted model server (docs/scripted-model.md) — validation, loading, and the
// pure rendering of one turn as Chat Completions response bodies and stream chunks.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const scriptToolCallSchema = z.strictObject({
  id: z.string().optional(),
  name: z.string(),
  // A string is sent verbatim, so malformed JSON can be scripted; an object is serialised.
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
});

/** Schema of one scripted turn; unknown keys are rejected so a typo fails at load time, not mid-test. */
export const scriptTurnSchema = z
  .strictObject({
    // The model named in the response, whatever the request asked for (as a server serving one model does).
    model: z.string().min(1).optional(),
    content: z.string().optional(),
    // What the model thought before answering: the Responses dialect returns it as an encrypted reasoning item.
    reasoning: z.string().optional(),
    tool_calls: z.array(scriptToolCallSchema).optional(),
    // `content_filter` is a refusal (Anthropic's `refusal` stop reason).
    finish_reason: z.enum(['stop', 'tool_calls', 'length', 'content_filter']).optional(),
    // Signed reasoning, as APIs that return it (Anthropic's thinking block) send it; others leave it out.
    thinking: z.strictObject({ text: z.string(), signature: z.string() }).optional(),
    delay_ms: z.number().int().nonnegative().optional(),
    error: z
      .strictObject({
        status: z.number().int().min(400).max(599),
        body: z.record(z.string(), z.unknown()).optional(),
        headers: z.record(z.string(), z.string()).optional(),
      })
      .optional(),
    usage: z
      .strictObject({
        prompt_tokens: z.number().int().nonnegative(),
        completion_tokens: z.number().int().nonnegative(),
        // Reported by the Responses dialect only: prompt tokens read from the cache, completion tokens spent reasoning.
        cached_tokens: z.number().int().nonnegative().optional(),
        reasoning_tokens: z.number().int().nonnegative().optional(),
        // Parts of prompt_tokens read from / written to the prompt cache, for APIs that report them (Anthropic).
        cache_read_tokens: z.number().int().nonnegative().optional(),
        cache_write_tokens: z.number().int().nonnegative().optional(),
      })
      .optional(),
    chunk_size: z.number().int().positive().optional(),
    // A stream whose events arrive over time: this long between two events, and `end_delay_ms` before the last one.
    chunk_delay_ms: z.number().int().nonnegative().optional(),
    end_delay_ms: z.number().int().nonnegative().optional(),
    truncate_stream: z.boolean().optional(),
    // A stream that never ends: `events` sends the turn's first half, then its last event again and again; `one_event`
    // opens one event and never finishes it. For the model-output cap; the stream stops only when the client leaves.
    endless_stream: z.enum(['events', 'one_event']).optional(),
    drop_connection: z.boolean().optional(),
    // A stream that fails after half its events with the API's in-stream error event.
    stream_error: z.strictObject({ code: z.string().optional(), message: z.string() }).optional(),
    expect: z.strictObject({ last_tool_contains: z.array(z.string()).optional() }).optional(),
    // Served only to a request whose first user message contains this text: the turns of agents running side by side
    // (sub-agents) each go to their own agent, whatever order the requests arrive in.
    for_task: z.string().min(1).optional(),
    // The exact text of the answer, sent as its content whatever the request offered (a malformed text-protocol answer).
    raw_content: z.string().optional(),
    // Served by a model without function calling: a request carrying tools is refused, as Ollama refuses it.
    reject_tools: z.boolean().optional(),
  })
  .refine((turn) => turn.raw_content === undefined || (turn.content === undefined && turn.tool_calls === undefined), {
    message: 'raw_content is the whole answer: a turn with it has no content or tool_calls',
    path: ['raw_content'],
  });

/** One scripted model response. */
export type ScriptTurn = z.infer<typeof scriptTurnSchema>;

/** Validates turns, naming the first bad turn (1-based) and what is wrong with it. */
export function parseScript(value: unknown, source = 'script'): ScriptTurn[] {
  if (!Array.isArray(value)) throw new Error(`${source}: a script is an array of turns (or JSONL, one turn per line)`);
  return value.map((turn, position) => {
    const parsed = scriptTurnSchema.safeParse(turn);
    if (!parsed.success)
      throw new Error(`${source}: turn ${position + 1} is invalid:\n${z.prettifyError(parsed.error)}`);
    return parsed.data;
  });
}

/** Parses script text: a JSON array, or JSONL with one turn per non-blank line. */
export function parseScriptText(text: string, source = 'script'): ScriptTurn[] {
  if (text.trimStart().startsWith('[')) return parseScript(parseJson(text, source), source);
  const turns: unknown[] = [];
  text.split(/\r?\n/).forEach((line, lineIndex) => {
    if (line.trim() !== '') turns.push(parseJson(line, `${source}:${lineIndex + 1}`));
  });
  return parseScript(turns, source);
}

/** Loads a script from turns already in memory or from a `.json` / `.jsonl` file. */
export async function loadScript(script: ScriptTurn[] | string): Promise<ScriptTurn[]> {
  if (typeof script !== 'string') return parseScript(script);
  return parseScriptText(await readFile(script, 'utf8'), script);
}

/** What the server knows of a request when it picks how to write a turn. */
export interface TurnAudience {
  /** False when the request carries no tools (undefined: its API's dialect does not say). */
  offersTools?: boolean;
  /** The request's system prompt asks for the text protocol's `Final Answer:`. */
  asksForFinalAnswer?: boolean;
}

/**
 * The turn as the request's model would answer: `raw_content` verbatim; to a request without tools, tool calls as
 * text-protocol actions (`Thought:` / `Action:` / `Action Input:`), as a model without function calling writes them,
 * and, when the prompt asks for the format, a plain answer as `Final Answer: …`.
 */
export function answerFor(turn: ScriptTurn, audience: TurnAudience): ScriptTurn {
  const { raw_content: raw, ...rest } = turn;
  if (raw !== undefined) return { ...rest, content: raw };
  if (audience.offersTools !== false) return turn;
  const calls = wireToolCalls(turn, 0);
  if (calls.length > 0) {
    const actions = calls.map((call) => `Action: ${call.function.name}\nAction Input: ${call.function.arguments}`);
    const { tool_calls: _calls, ...text } = rest;
    return {
      ...text,
      content: [`Thought: ${turn.content ?? 'I will use a tool.'}`, ...actions].join('\n'),
      finish_reason: turn.finish_reason === 'length' ? 'length' : 'stop',
    };
  }
  if (audience.asksForFinalAnswer && turn.content !== undefined)
    return { ...rest, content: `Final Answer: ${turn.content}` };
  return turn;
}

/** A tool call as sent on the wire. */
export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** What the server needs besides the turn to render a response. */
export interface RenderOptions {
  /** 1-based position of the turn in the script; makes ids deterministic. */
  turnNumber: number;
  model: string;
  created: number;
  /** Characters of the request's messages, for the default usage estimate. */
  promptChars: number;
}

/** The wire tool calls of a turn; a missing id becomes `call_<turn>_<index>`. */
export function wireToolCalls(turn: ScriptTurn, turnNumber: number): WireToolCall[] {
  return (turn.tool_calls ?? []).map((call, index) => ({
    id: call.id ?? `call_${turnNumber}_${index}`,
    type: 'function',
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

/** Usage as scripted, or a deterministic estimate of four characters per token. */
export function scriptUsage(
  turn: ScriptTurn,
  promptChars: number,
): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const completionChars =
    (turn.content ?? '').length +
    wireToolCalls(turn, 0).reduce((sum, call) => sum + call.function.name.length + call.function.arguments.length, 0);
  const prompt = turn.usage?.prompt_tokens ?? Math.ceil(promptChars / 4);
  const completion = turn.usage?.completion_tokens ?? Math.ceil(completionChars / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The finish reason a turn reports: as scripted, else `tool_calls` when it has calls and `stop` otherwise. */
export function scriptFinishReason(turn: ScriptTurn): 'stop' | 'tool_calls' | 'length' | 'content_filter' {
  return turn.finish_reason ?? ((turn.tool_calls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
}

/** The non-streaming `chat.completion` body of a turn. */
export function renderCompletion(turn: ScriptTurn, options: RenderOptions): Record<string, unknown> {
  const toolCalls = wireToolCalls(turn, options.turnNumber);
  return {
    id: `chatcmpl-scripted-${options.turnNumber}`,
    object: 'chat.completion',
    created: options.created,
    model: options.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.content ?? null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: scriptFinishReason(turn),
        logprobs: null,
      },
    ],
    usage: scriptUsage(turn, options.promptChars),
  };
}

/**
 * The `chat.completion.chunk` bodies of a turn, in order. Each tool call opens with its id and name, then sends its
 * arguments in `chunk_size` pieces. With `truncate_stream` the list stops halfway through the last call's arguments
 * (or the content), with no finish reason and no usage.
 */
export function renderChunks(
  turn: ScriptTurn,
  options: RenderOptions & { includeUsage: boolean },
): Record<string, unknown>[] {
  const base = {
    id: `chatcmpl-scripted-${options.turnNumber}`,
    object: 'chat.completion.chunk',
    created: options.created,
    model: options.model,
  };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
  const toolCalls = wireToolCalls(turn, options.turnNumber);
  const truncate = turn.truncate_stream === true;
  const chunks: Record<string, unknown>[] = [chunk({ role: 'assistant', content: '' })];
  const content = turn.content ?? '';
  const contentSent = truncate && toolCalls.length === 0 ? content.slice(0, Math.floor(content.length / 2)) : content;
  for (const piece of splitText(contentSent, turn.chunk_size)) chunks.push(chunk({ content: piece }));
  toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      }),
    );
    const isLast = index === toolCalls.length - 1;
    const argumentsSent =
      truncate && isLast
        ? call.function.arguments.slice(0, Math.floor(call.function.arguments.length / 2))
        : call.function.arguments;
    for (const piece of splitText(argumentsSent, turn.chunk_size))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  if (truncate) return chunks;
  chunks.push(chunk({}, scriptFinishReason(turn)));
  if (options.includeUsage) chunks.push({ ...base, choices: [], usage: scriptUsage(turn, options.promptChars) });
  return chunks;
}

/** `text` in pieces of `size` characters (one piece when no size is given; none for an empty text). */
export function splitText(text: string, size: number | undefined): string[] {
  if (text === '') return [];
  if (size === undefined) return [text];
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not valid JSON (${(error as Error).message})`);
  }
}
