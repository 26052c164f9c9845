// Reading a tool's result back from a request the scripted model recorded (no vitest here: the soak uses it too).
import type { ChatMessage } from '../../src/protocol/model.js';

/** Parses the tool message answering `callId` in a recorded request. */
export function toolResult(messages: ChatMessage[], callId: string): Record<string, any> {
  const message = messages.find((candidate) => candidate.role === 'tool' && candidate.tool_call_id === callId);
  if (!message) throw new Error(`no tool message for ${callId}`);
  return JSON.parse(message.content as string) as Record<string, any>;
}
