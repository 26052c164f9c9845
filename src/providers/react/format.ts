// Node: the text protocol for models without function calling (ReAct). The tools are described in the system prompt,
// the model answers `Thought / Action / Action Input` or `Final Answer`, and the transcript's tool calls and results
// are written back as that same text, so every request reads as one consistent conversation in the format.
import type { ChatMessage, ToolCallMessagePart, ToolChoice, ToolSchema } from '../../protocol/model.js';

/** The label of a final answer; the scripted server looks for it to know a request asks for this format. */
export const FINAL_ANSWER_LABEL = 'Final Answer:';
/** The label of a tool result sent back to the model. */
export const OBSERVATION_LABEL = 'Observation:';

/** The system-prompt section that describes the tools and the answer format; empty when no tool may be called. */
export function reactInstructions(tools: readonly ToolSchema[], choice: ToolChoice = 'auto'): string {
  if (tools.length === 0 || choice === 'none') return '';
  const described = tools.map(({ function: tool }) =>
    [`### ${tool.name}`, tool.description.trim(), `Parameters (JSON Schema): ${JSON.stringify(tool.parameters)}`]
      .filter((line) => line !== '')
      .join('\n'),
  );
  return [
    '## Tools',
    'You call tools by writing text in the answer format below; the result of each call comes back to you as a user ' +
      'message starting with "Observation:". The tools:',
    ...described,
    '## Answer format',
    'To call a tool, answer exactly:',
    'Thought: <what you will do and why>',
    `Action: <the tool's name: one of ${tools.map((tool) => tool.function.name).join(', ')}>`,
    'Action Input: <the arguments as one JSON object>',
    'then stop and wait for the Observation. Never write an Observation yourself.',
    ...(choice === 'auto'
      ? [
          'When you need no more tools, answer exactly:',
          'Thought: <your conclusion>',
          `${FINAL_ANSWER_LABEL} <your answer>`,
        ]
      : []),
    choiceRule(choice),
  ]
    .filter((line) => line !== '')
    .join('\n\n');
}

function choiceRule(choice: Exclude<ToolChoice, 'none'>): string {
  if (choice === 'auto') return 'Every answer is either one tool call or the final answer, in this format.';
  if (choice === 'required') return 'You must call a tool now: answer with an Action, not a final answer.';
  return `Use the tool ${choice.name} now: answer with "Action: ${choice.name}".`;
}

/** What the model is told after an answer in neither form. */
export function formatReminder(choice: ToolChoice): string {
  const forms =
    choice === 'auto'
      ? `either "Thought: …" / "Action: <tool name>" / "Action Input: <JSON object>", or "Thought: …" / "${FINAL_ANSWER_LABEL} …"`
      : typeof choice === 'object'
        ? `"Thought: …" / "Action: ${choice.name}" / "Action Input: <JSON object>"`
        : '"Thought: …" / "Action: <tool name>" / "Action Input: <JSON object>"';
  return `Your answer was not in the required format. Answer again, exactly as ${forms}.`;
}

/**
 * The transcript as a model without function calling reads it: the instructions appended to the system message,
 * assistant tool calls as Action text, tool results as `Observation:` user messages. Consecutive user messages are
 * joined, since many chat templates of such models insist that user and assistant alternate.
 */
export function toReactMessages(messages: readonly ChatMessage[], instructions: string): ChatMessage[] {
  const converted: ChatMessage[] = [];
  const push = (message: ChatMessage): void => {
    const last = converted.at(-1);
    if (message.role === 'user' && last?.role === 'user') {
      converted[converted.length - 1] = { role: 'user', content: `${last.content}\n\n${message.content}` };
    } else converted.push(message);
  };
  for (const message of messages) {
    if (message.role === 'tool') push({ role: 'user', content: `${OBSERVATION_LABEL} ${message.content}` });
    else if (message.role === 'assistant') push({ role: 'assistant', content: assistantText(message) });
    else push(message);
  }
  if (instructions === '') return converted;
  const systemIndex = converted.findIndex((message) => message.role === 'system');
  if (systemIndex === -1) return [{ role: 'system', content: instructions }, ...converted];
  const system = converted[systemIndex]!;
  converted[systemIndex] = { role: 'system', content: `${system.content}\n\n${instructions}` };
  return converted;
}

/** An earlier assistant message in the format the model is asked to answer in. */
function assistantText(message: Extract<ChatMessage, { role: 'assistant' }>): string {
  const thought = message.content?.trim() ?? '';
  const calls = message.tool_calls ?? [];
  // A final answer of an earlier turn is shown labelled as one, so the transcript keeps teaching the format.
  if (calls.length === 0) return thought === '' ? '' : `${FINAL_ANSWER_LABEL} ${thought}`;
  return [`Thought: ${thought || 'I will use a tool.'}`, ...calls.map(actionText)].join('\n');
}

function actionText(call: ToolCallMessagePart): string {
  return `Action: ${call.function.name}\nAction Input: ${call.function.arguments || '{}'}`;
}
