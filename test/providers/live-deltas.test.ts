// Each adapter reports its answer's pieces as they stream (onDelta), through its real SDK over HTTP against the
// scripted server: the text, reasoning where the API streams it, each tool call's name and then its arguments.
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveDelta } from '../../src/live/live-event.js';
import { createOpenAIChatProvider } from '../../src/providers/openai-chat/adapter.js';
import { createReactProvider } from '../../src/providers/react/protocol.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn, ScriptedModelServer } from '../../src/scripted-model/server.js';
import { ADAPTERS, readFileTool } from '../support/provider-suite.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const turn: ScriptTurn = {
  content: 'Let me look around.',
  reasoning: 'The file will say.',
  thinking: { text: 'The file will say.', signature: 'sig' },
  tool_calls: [{ id: 'call_1', name: 'ReadFile', arguments: { path: 'notes.txt' } }],
  chunk_size: 4,
  // Arriving over time, as a model's answer does: what arrives in one read is reported as one piece.
  chunk_delay_ms: 2,
};

/** The deltas of one answer, joined per kind: what a watcher would have shown. */
function joined(deltas: LiveDelta[]) {
  return {
    text: deltas.flatMap((delta) => (delta.kind === 'text' ? [delta.text] : [])).join(''),
    reasoning: deltas.flatMap((delta) => (delta.kind === 'reasoning' ? [delta.text] : [])).join(''),
    calls: deltas.flatMap((delta) => (delta.kind === 'tool_call' ? [`${delta.index}:${delta.name}`] : [])),
    arguments: deltas.flatMap((delta) => (delta.kind === 'tool_arguments' ? [delta.text] : [])).join(''),
  };
}

describe.each(Object.entries(ADAPTERS))('live deltas of %s', (key, adapter) => {
  it('streams the text in pieces, then the call name before its arguments, all matching the turn', async () => {
    server = await startScriptedModelServer({ script: [turn] });
    const deltas: LiveDelta[] = [];
    const result = await adapter.make(server.url).complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [readFileTool],
      model: '',
      onDelta: (delta) => deltas.push(delta),
    });
    const seen = joined(deltas);
    expect(seen.text).toBe(result.content);
    expect(deltas.filter((delta) => delta.kind === 'text').length).toBeGreaterThan(1);
    expect(seen.calls).toEqual(['0:ReadFile']);
    expect(seen.arguments).toBe(result.toolCalls[0]!.arguments);
    const nameAt = deltas.findIndex((delta) => delta.kind === 'tool_call');
    const firstArgumentsAt = deltas.findIndex((delta) => delta.kind === 'tool_arguments');
    expect(nameAt).toBeLessThan(firstArgumentsAt);
    // Chat Completions has no reasoning on the wire; Responses streams its summary, Anthropic its thinking.
    expect(seen.reasoning).toBe(key === 'chat' ? '' : 'The file will say.');
  });
});

describe('live deltas of the text protocol', () => {
  it('shows the thought as text and the action as a tool call with its input as arguments', async () => {
    server = await startScriptedModelServer({ script: [turn] });
    const provider = createReactProvider(
      createOpenAIChatProvider({ apiKey: 'k', baseURL: server.url, defaultModel: 'm' }),
    );
    const deltas: LiveDelta[] = [];
    const result = await provider.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [readFileTool],
      model: '',
      onDelta: (delta) => deltas.push(delta),
    });
    const seen = joined(deltas);
    expect(result.toolCalls[0]!.name).toBe('ReadFile');
    expect(seen.text).toBe('Let me look around.\n');
    expect(seen.calls).toEqual(['0:ReadFile']);
    expect(JSON.parse(seen.arguments)).toEqual({ path: 'notes.txt' });
    expect(seen.text + seen.arguments).not.toContain('Action');
  });
});
