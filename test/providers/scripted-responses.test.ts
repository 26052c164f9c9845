// The scripted server's Responses dialect refuses, with HTTP 400 and an OpenAI error body, what the real API refuses.
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn, ScriptedModelServer } from '../../src/scripted-model/server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: ScriptTurn[] = [{ content: 'ok' }]) {
  server = await startScriptedModelServer({ script });
}

async function post(body: Record<string, unknown>) {
  const response = await fetch(`${server!.url}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const tool = { type: 'function', name: 'ReadFile', parameters: { type: 'object', properties: {} } };
const call = (id: string) => ({ type: 'function_call', call_id: id, name: 'ReadFile', arguments: '{}' });
const output = (id: string) => ({ type: 'function_call_output', call_id: id, output: 'text' });

describe('the Responses dialect', () => {
  it.each([
    ['no model', { input: 'hi' }, "Missing required parameter: 'model'."],
    ['an input that is neither string nor array', { model: 'm', input: { role: 'user' } }, "Invalid type for 'input'"],
    [
      'an output for a call never made',
      { model: 'm', input: [{ role: 'user', content: 'x' }, output('call_x')] },
      'No tool call found for function call output with call_id call_x.',
    ],
    [
      'a call without output before the next user message',
      { model: 'm', input: [call('call_a'), { role: 'user', content: 'x' }, output('call_a')] },
      'No tool output found for function call call_a.',
    ],
    [
      'a call without output at the end of the input',
      { model: 'm', input: [call('call_a'), call('call_b'), output('call_a')] },
      'No tool output found for function call call_b.',
    ],
    [
      "tools in Chat Completions' shape",
      { model: 'm', input: 'x', tools: [{ type: 'function', function: { name: 'ReadFile', parameters: {} } }] },
      "Missing required parameter: 'tools[0].name'.",
    ],
    [
      'a tool choice naming an unknown function',
      { model: 'm', input: 'x', tools: [tool], tool_choice: { type: 'function', name: 'WriteFile' } },
      "Tool choice 'WriteFile' not found in 'tools' parameter",
    ],
    [
      'a reasoning item without encrypted content while store is false',
      {
        model: 'm',
        store: false,
        input: [
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { role: 'user', content: 'x' },
        ],
      },
      "Item 'rs_1' of type 'reasoning' has no 'encrypted_content'",
    ],
    [
      'reasoning whose encrypted content the server never issued',
      {
        model: 'm',
        input: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'forged' }],
      },
      "The encrypted content for item 'rs_1' could not be verified.",
    ],
  ])('refuses %s', async (_name, body, message) => {
    await start();
    const answer = await post(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect(answer.body.error.message).toContain(message);
    expect(server!.requests).toHaveLength(0);
    expect(server!.remaining()).toBe(1);
  });

  it('accepts paired calls and outputs in the flat tool shape, a string input, and a named tool choice', async () => {
    await start([{ content: 'a' }, { content: 'b' }]);
    const paired = await post({
      model: 'm',
      tools: [tool],
      tool_choice: { type: 'function', name: 'ReadFile' },
      input: [{ role: 'user', content: 'x' }, call('call_a'), call('call_b'), output('call_b'), output('call_a')],
    });
    expect(paired.status).toBe(200);
    expect(paired.body).toMatchObject({ object: 'response', status: 'completed', output: [{ type: 'message' }] });
    expect((await post({ model: 'm', input: 'hello' })).status).toBe(200);
  });

  it("refuses a turn's function calls sent back without the reasoning item that preceded them", async () => {
    await start([
      { reasoning: 'think', tool_calls: [{ id: 'call_r', name: 'ReadFile', arguments: {} }] },
      { content: 'after' },
    ]);
    const first = await post({ model: 'm', store: false, input: 'go', tools: [tool] });
    const [reasoning, functionCall] = first.body.output as Record<string, unknown>[];
    expect(reasoning).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }] });
    expect(reasoning!.encrypted_content).toEqual(expect.any(String));
    const { id: _id, status: _status, ...sentCall } = functionCall!;
    const without = await post({ model: 'm', store: false, input: [sentCall, output('call_r')] });
    expect(without.status).toBe(400);
    expect(without.body.error.message).toBe(
      "Item 'fc_scripted_1_0' of type 'function_call' was provided without its required 'reasoning' item: 'rs_scripted_1'.",
    );
    const withIt = await post({
      model: 'm',
      store: false,
      input: [reasoning, sentCall, output('call_r')],
      tools: [tool],
    });
    expect(withIt.status).toBe(200);
  });

  it('streams the events of a turn in order, with the final response and its usage', async () => {
    await start([
      {
        reasoning: 'r',
        content: 'Hi!',
        tool_calls: [{ id: 'c1', name: 'ReadFile', arguments: { path: 'a' } }],
        chunk_size: 2,
        usage: { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 4, reasoning_tokens: 2 },
      },
    ]);
    const response = await fetch(`${server!.url}/responses`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', input: 'x', stream: true }),
    });
    const events = (await response.text())
      .split('\n\n')
      .filter(Boolean)
      .map((event) => JSON.parse(event.split('\n')[1]!.slice(6)) as Record<string, any>);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      ...Array<string>(Math.ceil('{"path":"a"}'.length / 2)).fill('response.function_call_arguments.delta'),
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    expect(events.at(-1)!.response.usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 15,
    });
  });
});
