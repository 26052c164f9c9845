// Node: the text protocol (react-format, react-parse) around any ModelProvider, for models without function calling.
// The wrapped provider is sent no tools; the workflow still gets ordinary tool calls, so the same envelopes, argument
// repair and permission gates apply to them as to native ones.
import { createHash } from 'node:crypto';
import type { ChatMessage, ModelTurn, RawToolCall, ToolChoice, Usage } from '../../protocol/model.js';
import type { ModelProvider, ProviderRequest } from '../model-provider.js';
import { functionTools } from '../model-provider.js';
import { formatReminder, reactInstructions, toReactMessages } from './format.js';
import { finalAnswerOf, parseReactAnswer } from './parse.js';
import { reactLiveDeltas } from './live-text.js';

/** A provider that offers tools in the prompt and reads tool calls from the answer's text. */
export function createReactProvider(inner: ModelProvider): ModelProvider {
  return { name: inner.name, complete: (request) => completeInText(inner, request) };
}

async function completeInText(inner: ModelProvider, request: ProviderRequest): Promise<ModelTurn> {
  const choice = request.toolChoice ?? 'auto';
  const tools = functionTools(request);
  const offersTools = tools.length > 0 && choice !== 'none';
  const messages = toReactMessages(request.messages, offersTools ? reactInstructions(tools, choice) : '');
  // The wrapped provider is offered no tool at all, the final one included: they are in the prompt.
  const { toolChoice: _choice, outputSchema: _outputSchema, onDelta, ...rest } = request;
  const ask = (prompt: ChatMessage[]): Promise<ModelTurn> =>
    inner.complete({
      ...rest,
      messages: prompt,
      tools: [],
      ...(onDelta ? { onDelta: offersTools ? reactLiveDeltas(onDelta) : onDelta } : {}),
    });

  const first = await ask(messages);
  // An endpoint that called a tool natively all the same: its calls are as good as parsed ones.
  if (first.toolCalls.length > 0) return first;
  if (!offersTools) return asFinal(first);
  const understood = interpret(first, choice);
  if (understood) return understood;
  // One reminder of the format, within this same activity call: the workflow sees one answer either way.
  const second = await ask([
    ...messages,
    { role: 'assistant', content: first.content ?? '' },
    { role: 'user', content: formatReminder(choice) },
  ]);
  const usage = addUsage(first.usage, second.usage);
  if (second.toolCalls.length > 0) return { ...second, usage };
  return { ...(interpret(second, choice) ?? stillMalformed(second, choice)), usage };
}

/** The turn an answer in the format stands for, or undefined when it is in neither form (or not the one required). */
function interpret(turn: ModelTurn, choice: ToolChoice): ModelTurn | undefined {
  const text = turn.content ?? '';
  const answer = parseReactAnswer(text, turn.finishReason === 'length');
  if (answer.kind === 'final') return choice === 'auto' ? { ...turn, content: answer.answer } : undefined;
  if (answer.kind === 'malformed') return undefined;
  const id = `react_${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
  const toolCalls: RawToolCall[] = answer.actions.map((action, index) => ({
    id: `${id}_${index}`,
    name: action.name,
    arguments: action.input,
    complete: action.complete,
  }));
  return {
    ...turn,
    content: answer.thought === '' ? null : answer.thought,
    toolCalls,
    finishReason: turn.finishReason === 'length' ? 'length' : 'tool_calls',
  };
}

/**
 * A second answer in neither form, after the reminder. Where a final answer may be given (`auto`) it is taken as the
 * final answer: a model that answers in prose twice, having been shown the format, is answering, and the run keeps
 * its words instead of spending steps on a format it does not follow. Where a tool call is required it becomes one,
 * to the named tool (or to none), with the text as its arguments: the workflow's envelope then tells the model what
 * the call lacks, as it would for a native call, and the model tries again on the next step.
 */
function stillMalformed(turn: ModelTurn, choice: ToolChoice): ModelTurn {
  const text = turn.content ?? '';
  if (choice === 'auto' || choice === 'none') return asFinal(turn);
  const id = `react_${createHash('sha256').update(text).digest('hex').slice(0, 12)}_0`;
  const call: RawToolCall = {
    id,
    arguments: text,
    complete: true,
    ...(typeof choice === 'object' ? { name: choice.name } : {}),
  };
  return { ...turn, content: null, toolCalls: [call], finishReason: 'tool_calls' };
}

function asFinal(turn: ModelTurn): ModelTurn {
  return turn.content === null ? turn : { ...turn, content: finalAnswerOf(turn.content) };
}

function addUsage(a: Usage, b: Usage): Usage {
  const sum = (x: number | undefined, y: number | undefined): number | undefined =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  const optional = (key: 'cachedTokens' | 'cacheWriteTokens' | 'reasoningTokens'): Partial<Usage> => {
    const value = sum(a[key], b[key]);
    return value === undefined ? {} : { [key]: value };
  };
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...optional('cachedTokens'),
    ...optional('cacheWriteTokens'),
    ...optional('reasoningTokens'),
    ...(a.estimated || b.estimated ? { estimated: true } : {}),
  };
}
