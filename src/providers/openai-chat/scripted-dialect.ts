// Node: the scripted server's Chat Completions dialect (`POST /v1/chat/completions`), what the `openai` and `scripted`
// providers speak.
import type { ChatMessage } from '../../protocol/model.js';
import { SUMMARISER_PROMPT } from '../../core/compaction.js';
import type { ScriptedDialect } from '../../scripted-model/dialect.js';
import { FINAL_ANSWER_LABEL, OBSERVATION_LABEL } from '../react/format.js';
import { renderChunks, renderCompletion } from '../../scripted-model/script.js';

/** The one Chat Completions dialect: it remembers nothing between requests. */
export const createScriptedDialect = (): ScriptedDialect => chatDialect;

export const chatDialect: ScriptedDialect = {
  path: '/v1/chat/completions',
  read(body) {
    const messages = body.messages;
    if (!Array.isArray(messages))
      return {
        ok: false,
        status: 400,
        message: 'Scripted model: a chat completion request is a JSON object with a "messages" array',
      };
    const chat = messages as ChatMessage[];
    // A model without function calling gets tool results as user messages of the text protocol (`Observation: …`).
    const lastTool =
      chat.findLast((message) => message.role === 'tool') ??
      chat.findLast((message) => message.role === 'user' && String(message.content).includes(OBSERVATION_LABEL));
    const first = chat[0];
    return {
      ok: true,
      stream: body.stream === true,
      prompt: messages,
      ...(typeof body.model === 'string' ? { model: body.model } : {}),
      ...(lastTool
        ? { lastToolResult: typeof lastTool.content === 'string' ? lastTool.content : JSON.stringify(lastTool.content) }
        : {}),
      compaction:
        first?.role === 'system' && typeof first.content === 'string' && first.content.startsWith(SUMMARISER_PROMPT),
      offersTools: Array.isArray(body.tools) && body.tools.length > 0,
      asksForFinalAnswer: chat.some(
        (message) =>
          message.role === 'system' &&
          typeof message.content === 'string' &&
          message.content.includes(FINAL_ANSWER_LABEL),
      ),
    };
  },
  render: (turn, options) => renderCompletion(turn, options),
  renderEvents: (turn, options) => renderChunks(turn, options).map((data) => ({ data })),
  includeUsage: (body) => (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true,
  done: 'data: [DONE]\n\n',
  errorBody: (_status, code, message) => ({ error: { message, type: 'scripted_model_error', code } }),
  // Compatible servers report a failure inside a stream as a chunk carrying `error`.
  streamError: ({ code, message }) => ({ data: { error: { message, type: 'server_error', code: code ?? null } } }),
};
