// Node: the project's transcript, tools and tool choice in the Anthropic Messages API's terms. Pure translation; the
// adapter (anthropic-messages.ts) sends it.
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolChoice as AnthropicToolChoice,
} from '@anthropic-ai/sdk/resources/messages';
import type { ChatMessage, ToolChoice } from '../../protocol/model.js';
import type { ToolContract } from '../../tools/define-tool.js';
import { toInputJsonSchema } from '../../tools/schema-export.js';
import { finalResultToolSchema } from '../../core/final-result.js';

/** The provider name on the provider items (thinking blocks) this API needs back. */
export const ANTHROPIC_PROVIDER = 'anthropic';

/**
 * The output cap sent when the model's own limit is not lower. Output is billed as generated, not as capped, so a
 * generous cap costs nothing; a low one cuts off the large tool calls an agent makes (a whole file in WriteFile).
 * 32,000 is the largest every current Claude model accepts (Opus 4 and 4.1 allow 32K, the others 64K): the API
 * rejects a request asking for more than the model can produce.
 */
export const DEFAULT_MAX_TOKENS = 32_000;

// Older models with a smaller output limit, by name prefix.
const SMALLER_OUTPUT_LIMITS: ReadonlyArray<[prefix: string, maxTokens: number]> = [
  ['claude-3-5-', 8_192],
  ['claude-3-haiku', 4_096],
  ['claude-3-opus', 4_096],
  ['claude-3-sonnet', 4_096],
];

/** The `max_tokens` the API requires: DEFAULT_MAX_TOKENS, or an older model's lower limit. */
export function maxTokensFor(model: string): number {
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return SMALLER_OUTPUT_LIMITS.find(([prefix]) => name.startsWith(prefix))?.[1] ?? DEFAULT_MAX_TOKENS;
}

const CACHE_MARK = { cache_control: { type: 'ephemeral' } } as const;

/** The streaming request body of one model call. */
export function toAnthropicRequest(options: {
  messages: ChatMessage[];
  tools: readonly ToolContract[];
  outputSchema?: Record<string, unknown> | undefined;
  toolChoice?: ToolChoice | undefined;
  model: string;
  maxTokens: number;
}): MessageCreateParamsStreaming {
  const system = toSystemBlocks(options.messages);
  const body: MessageCreateParamsStreaming = {
    model: options.model,
    max_tokens: options.maxTokens,
    messages: toAnthropicMessages(options.messages),
    stream: true,
  };
  if (system.length > 0) body.system = system;
  const tools = [
    ...options.tools.map(toAnthropicTool),
    ...(options.outputSchema ? [finalResultTool(options.outputSchema)] : []),
  ];
  if (tools.length > 0) {
    // Prompt caching: the mark on the last tool caches every tool, the one on the last system block the system
    // prompt after them, and the one on the latest message the transcript so far; the next step reads all three
    // back at a tenth of the input price. The API allows four marks.
    body.tools = tools.map((tool, index) => (index === tools.length - 1 ? { ...tool, ...CACHE_MARK } : tool)) as Tool[];
    // Parallel tool use is on unless disabled, so nothing else is sent.
    body.tool_choice = toAnthropicToolChoice(options.toolChoice ?? 'auto');
  }
  return body;
}

/** The project's tool choice in Anthropic's terms (`required` is `any`). */
export function toAnthropicToolChoice(choice: ToolChoice): AnthropicToolChoice {
  if (typeof choice !== 'string') return { type: 'tool', name: choice.name };
  return { type: choice === 'required' ? 'any' : choice };
}

/** Every system message as a top-level text block, in order, the last one marked for caching. */
function toSystemBlocks(messages: ChatMessage[]): TextBlockParam[] {
  // The API rejects empty text blocks.
  const texts = messages.flatMap((message) =>
    message.role === 'system' && message.content !== '' ? [message.content] : [],
  );
  return texts.map((text, index) => ({
    type: 'text',
    text,
    ...(index === texts.length - 1 ? CACHE_MARK : {}),
  }));
}

/**
 * The conversation as alternating user and assistant messages: tool results become `tool_result` blocks of a user
 * message, and adjacent messages of one role are merged, as the API requires.
 */
export function toAnthropicMessages(messages: ChatMessage[]): MessageParam[] {
  const result: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    // An assistant turn with nothing in it (no text, no calls) has no place in the API's transcript.
    if (blocks.length === 0) continue;
    const previous = result.at(-1);
    if (previous?.role === role) (previous.content as ContentBlockParam[]).push(...blocks);
    else result.push({ role, content: blocks });
  }
  const lastBlock = (result.at(-1)?.content as ContentBlockParam[] | undefined)?.at(-1);
  // Thinking blocks cannot carry a cache mark; the latest message of an agent's transcript is a user one anyway.
  if (lastBlock && lastBlock.type !== 'thinking' && lastBlock.type !== 'redacted_thinking')
    Object.assign(lastBlock, CACHE_MARK);
  return result;
}

function toBlocks(message: Exclude<ChatMessage, { role: 'system' }>): ContentBlockParam[] {
  switch (message.role) {
    case 'user':
      return message.content === '' ? [] : [{ type: 'text', text: message.content }];
    case 'tool':
      return [
        {
          type: 'tool_result',
          tool_use_id: message.tool_call_id,
          content: message.content,
          ...(isErrorEnvelope(message.content) ? { is_error: true } : {}),
        },
      ];
    case 'assistant': {
      // Signed thinking goes back first and unchanged: the API checks its signature and its place before the calls.
      const thinking = (message.provider_items ?? []).flatMap((entry) =>
        entry.provider === ANTHROPIC_PROVIDER ? [{ ...entry.item } as unknown as ContentBlockParam] : [],
      );
      const text: ContentBlockParam[] = message.content ? [{ type: 'text', text: message.content }] : [];
      const calls = (message.tool_calls ?? []).map((call): ContentBlockParam => ({
        type: 'tool_use',
        id: call.id,
        name: call.function.name,
        input: parsedInput(call.function.arguments),
      }));
      return [...thinking, ...text, ...calls];
    }
  }
}

/**
 * A call's arguments as the object the API wants back. Malformed arguments (the model's own, already answered with
 * an error result) become `{}`: the API accepts only an object, and the result explains what was wrong.
 */
function parsedInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

// Tool results are the project's JSON envelopes; one whose status is "error" is flagged so the model reads it as one.
function isErrorEnvelope(content: string): boolean {
  try {
    const envelope: unknown = JSON.parse(content);
    return typeof envelope === 'object' && envelope !== null && (envelope as { status?: unknown }).status === 'error';
  } catch {
    return false;
  }
}

/**
 * A tool in the Messages API's terms: its plain input schema, since Anthropic needs no strict rewriting (optional
 * fields stay optional, defaults and bounds stay in the schema).
 */
export function toAnthropicTool(contract: ToolContract): Tool {
  return {
    name: contract.name,
    description: contract.description,
    input_schema: toInputJsonSchema(contract) as Tool['input_schema'],
  };
}

// A structured run's final tool: the run's schema, as given, is its input schema.
function finalResultTool(outputSchema: Record<string, unknown>): Tool {
  const { function: tool } = finalResultToolSchema(outputSchema);
  return { name: tool.name, description: tool.description, input_schema: tool.parameters as Tool['input_schema'] };
}
