// The scripted server's Messages dialect refuses what the real Anthropic API refuses, in the API's error shape, and
// serves the script's turns as Messages answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARISER_PROMPT } from '../../src/core/compaction.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptedModelServer } from '../../src/scripted-model/server.js';

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer({
    script: [{ content: 'accepted', usage: { prompt_tokens: 50, completion_tokens: 5, cache_read_tokens: 30 } }],
    compactionSummary: 'the summary',
  });
});
afterAll(async () => {
  await server.close();
});

async function post(body: Record<string, unknown>) {
  const response = await fetch(`${server.url}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const tool = { name: 'ReadFile', description: 'Read', input_schema: { type: 'object', properties: {} } };
const call = { type: 'tool_use', id: 'toolu_1', name: 'ReadFile', input: {} };
const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'A' };
const valid = {
  model: 'claude-test',
  max_tokens: 1024,
  messages: [
    { role: 'user', content: 'read' },
    { role: 'assistant', content: [call] },
    { role: 'user', content: [result] },
  ],
  tools: [tool],
};
const marked = { type: 'text', text: 'x', cache_control: { type: 'ephemeral' } };

describe('the Anthropic Messages dialect', () => {
  it.each([
    ['a missing model', { ...valid, model: undefined }, /model/],
    ['a missing max_tokens', { ...valid, max_tokens: undefined }, /max_tokens/],
    ['no messages', { ...valid, messages: [] }, /at least one message/],
    ['a first message that is not the user', { ...valid, messages: [{ role: 'assistant', content: 'hi' }] }, /first/],
    [
      'roles that do not alternate',
      {
        ...valid,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
      /alternate/,
    ],
    [
      'a system message inside messages',
      { ...valid, messages: [{ role: 'system', content: 's' }, ...valid.messages] },
      /system/,
    ],
    [
      'a tool_use without its tool_result in the next message',
      {
        ...valid,
        messages: [valid.messages[0], valid.messages[1], { role: 'user', content: 'ignored the call' }],
      },
      /toolu_1/,
    ],
    ['a tool_use as the last message', { ...valid, messages: valid.messages.slice(0, 2) }, /toolu_1/],
    [
      'a tool_result answering no call of the previous message',
      {
        ...valid,
        messages: [
          { role: 'user', content: 'read' },
          { role: 'assistant', content: 'no call' },
          { role: 'user', content: [result] },
        ],
      },
      /unexpected `tool_use_id`/,
    ],
    [
      'a tool schema that is not an object',
      { ...valid, tools: [{ ...tool, input_schema: { type: 'string' } }] },
      /input_schema/,
    ],
    [
      'an empty text block',
      { ...valid, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
      /non-empty/,
    ],
    ['an empty system block', { ...valid, system: [{ type: 'text', text: '' }] }, /non-empty/],
    ['five cache marks', { ...valid, system: [marked, marked, marked, marked, marked] }, /maximum of 4/],
    ['a tool choice naming an unknown tool', { ...valid, tool_choice: { type: 'tool', name: 'Nope' } }, /Nope/],
  ])('refuses %s with HTTP 400 in the API error shape', async (_what, body, message) => {
    const answer = await post(body as Record<string, unknown>);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect((answer.body.error as { message: string }).message).toMatch(message);
  });

  it('accepts a valid request and answers it as a Messages response', async () => {
    const answer = await post({
      ...valid,
      system: [marked, marked, marked],
      tool_choice: { type: 'tool', name: 'ReadFile' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: 'accepted' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 20, cache_read_input_tokens: 30, cache_creation_input_tokens: 0, output_tokens: 5 },
    });
  });

  it('recognises a compaction request by its system prompt and answers with the summary', async () => {
    const answer = await post({
      model: 'claude-test',
      max_tokens: 1024,
      system: [{ type: 'text', text: `${SUMMARISER_PROMPT}\nmore` }],
      messages: [{ role: 'user', content: 'summarise' }],
    });
    expect(answer.body).toMatchObject({ content: [{ type: 'text', text: 'the summary' }] });
  });
});
