// The Chat Completions adapter through the real `openai` client, over HTTP, against the scripted server.
import { describe, expect, it } from 'vitest';
import {
  ADAPTERS,
  describeProviderCases,
  readFileSchema,
  readFileTool,
  useScriptedServer,
} from '../support/provider-suite.js';

describeProviderCases(ADAPTERS.chat);

describe('createOpenAIChatProvider against the scripted server', () => {
  const scripted = useScriptedServer();

  it('sends the documented request options', async () => {
    const provider = ADAPTERS.chat.make((await scripted.start([{ content: 'a' }, { content: 'b' }])).url);
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [readFileTool], model: 'gpt-x' });
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], model: 'gpt-x' });
    const [withTools, withoutTools] = scripted.server.requests;
    expect(withTools).toMatchObject({
      model: 'gpt-x',
      stream: true,
      stream_options: { include_usage: true },
      tool_choice: 'auto',
      parallel_tool_calls: true,
      tools: [readFileSchema],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(withoutTools).not.toHaveProperty('tools');
    expect(withoutTools).not.toHaveProperty('tool_choice');
    expect(withoutTools).not.toHaveProperty('parallel_tool_calls');
  });

  it('reports finish_reason length with the truncated call incomplete', async () => {
    const provider = ADAPTERS.chat.make(
      (
        await scripted.start([
          {
            tool_calls: [{ id: 'w', name: 'WriteFile', arguments: '{"path":"a.md","content":"# Ti' }],
            finish_reason: 'length',
          },
        ])
      ).url,
    );
    const turn = await provider.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [readFileTool],
      model: 'm',
    });
    expect(turn.finishReason).toBe('length');
    expect(turn.toolCalls[0]).toMatchObject({ arguments: '{"path":"a.md","content":"# Ti', complete: false });
  });

  it('reports no usage for a stream cut off before its end', async () => {
    const provider = ADAPTERS.chat.make(
      (
        await scripted.start([
          { tool_calls: [{ id: 'a', name: 'ReadFile', arguments: { path: 'one.ts' } }], truncate_stream: true },
        ])
      ).url,
    );
    const turn = await provider.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model: 'm' });
    expect(turn.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
  });

  it("throws the stream's error chunk with its code and message", async () => {
    const provider = ADAPTERS.chat.make(
      (
        await scripted.start([
          {
            content: 'half of this arrives',
            chunk_size: 2,
            stream_error: { code: 'server_error', message: 'overloaded' },
          },
        ])
      ).url,
    );
    const failure = await provider
      .complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model: 'm' })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: undefined, code: 'server_error', message: 'overloaded' });
  });
});
