// Node: the OpenAI Responses adapter, streaming and stateless. Nothing is stored on OpenAI's side (`store: false`)
// and the whole transcript is sent every time, reasoning included as the encrypted items the API returned, so a
// replayed activity, or a retry on another worker, never depends on what an earlier call left on the server.
import OpenAI, { APIUserAbortError } from 'openai';
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from 'openai/resources/responses/responses';
import type { ChatMessage, ModelTurn, ToolChoice, ToolSchema } from '../../protocol/model.js';
import type { ModelProvider, ProviderRequest } from '../model-provider.js';
import { functionTools } from '../model-provider.js';
import { openAIEndpoint } from '../openai-endpoint.js';
import type { ProviderFactory } from '../setup.js';
import { RESPONSES_PROVIDER, ResponsesAssembler } from './responses-assembler.js';
import type { ResponsesStreamEvent } from './responses-assembler.js';
import { OutputMeter } from '../output-cap.js';
import { maxModelOutputBytesFromEnv } from '../output-limit.js';
import { readEventData } from '../sse-reader.js';

/** Options of `createOpenAIResponsesProvider`. The key comes from the worker's environment, never from a run. */
export interface OpenAIResponsesProviderOptions {
  apiKey: string;
  /** Base URL ending in `/v1`; the OpenAI API when omitted. */
  baseURL?: string;
  /** Model used when a request names none. */
  defaultModel: string;
  /** The cap of one answer's output; DURABLE_AGENT_MAX_MODEL_OUTPUT_BYTES (or its default) when omitted. */
  maxOutputBytes?: number;
}

/** A ModelProvider on the Responses API, streaming, with the SDK's own retries off (Temporal retries). */
export function createOpenAIResponsesProvider(options: OpenAIResponsesProviderOptions): ModelProvider {
  const client = new OpenAI({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 0 });
  return {
    name: RESPONSES_PROVIDER,
    complete: (request) =>
      completeStreaming(client, options.defaultModel, options.maxOutputBytes ?? maxModelOutputBytesFromEnv(), request),
  };
}

/** `openai-responses` in the provider table: key and endpoint exactly as for `openai` (OPENAI_API_KEY, OPENAI_BASE_URL). */
export const createProvider: ProviderFactory = (setup) =>
  createOpenAIResponsesProvider({
    defaultModel: setup.model,
    maxOutputBytes: maxModelOutputBytesFromEnv(setup.env),
    ...openAIEndpoint(setup),
  });

async function completeStreaming(
  client: OpenAI,
  defaultModel: string,
  maxOutputBytes: number,
  request: ProviderRequest,
): Promise<ModelTurn> {
  const model = request.model || defaultModel;
  const body: ResponseCreateParamsStreaming = {
    model,
    input: request.messages.flatMap(toResponsesInput),
    stream: true,
    store: false,
    // Without stored state, reasoning comes back only encrypted, to be sent back with the next request.
    include: ['reasoning.encrypted_content'],
  };
  const tools = functionTools(request);
  if (tools.length > 0) {
    body.tools = tools.map(toResponsesTool);
    body.tool_choice = toResponsesToolChoice(request.toolChoice ?? 'auto');
    body.parallel_tool_calls = body.tool_choice !== 'none';
  }
  // The SDK makes the request and maps HTTP errors; the events are read by readEventData, in linear time.
  const response = await client.responses
    .create(body, { signal: request.signal, ...(request.headers ? { headers: request.headers } : {}) })
    .asResponse();
  const meter = new OutputMeter(maxOutputBytes);
  const assembler = new ResponsesAssembler(model, meter, request.onDelta);
  try {
    // Past the cap the assembler throws; leaving the loop cancels the body's reader, which closes the request.
    for await (const events of readEventData<ResponsesStreamEvent>(response, meter)) {
      for (const event of events) assembler.push(event);
      request.onProgress?.(assembler.progress());
    }
  } catch (error) {
    // An aborted call must not look like an answer cut short, nor like a broken connection.
    if (request.signal?.aborted) throw new APIUserAbortError();
    throw error;
  }
  if (request.signal?.aborted) throw new APIUserAbortError();
  return assembler.finish();
}

/**
 * One transcript message as Responses input items. System messages stay system items where the transcript has them
 * (rather than joined into `instructions`): the translation keeps the transcript's order one for one, and a system
 * message that is not first stays where it was written.
 */
export function toResponsesInput(message: ChatMessage): ResponseInputItem[] {
  switch (message.role) {
    case 'system':
    case 'user':
      return [{ role: message.role, content: message.content }];
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.tool_call_id, output: message.content }];
    case 'assistant':
      return assistantItems(message);
  }
}

function assistantItems(message: Extract<ChatMessage, { role: 'assistant' }>): ResponseInputItem[] {
  // Reasoning first, verbatim and in order: the API pairs each function call with the reasoning that led to it.
  const items = (message.provider_items ?? [])
    .filter((providerItem) => providerItem.provider === RESPONSES_PROVIDER)
    .map((providerItem) => providerItem.item as unknown as ResponseInputItem);
  if (message.content) {
    // An id-less output message: the API takes previous assistant text as `output_text` content.
    items.push({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: message.content, annotations: [] }],
    } as unknown as ResponseInputItem);
  }
  for (const call of message.tool_calls ?? []) {
    items.push({
      type: 'function_call',
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  return items;
}

/**
 * A function description in the Responses API's flat shape: the same name, description, schema and strictness,
 * without the nested `function`.
 */
export function toResponsesTool(tool: ToolSchema): FunctionTool {
  const { name, description, parameters, strict } = tool.function;
  return { type: 'function', name, description, parameters, strict: strict ?? false };
}

/** The project's tool choice in Responses' terms. */
export function toResponsesToolChoice(choice: ToolChoice): ToolChoiceOptions | ToolChoiceFunction {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}
