// What a run sent the scripted model: the user messages of a request after the task itself (steering messages,
// interrupt notes, follow-up requests), as the tests of control messages read them.
import type { ChatMessage } from '../../src/protocol/model.js';

/** The user messages of a Chat Completions request body after the first (the task). */
export function laterUserMessages(body: unknown): string[] {
  return (body as { messages: ChatMessage[] }).messages
    .filter((message) => message.role === 'user')
    .slice(1)
    .map((message) => String(message.content));
}
