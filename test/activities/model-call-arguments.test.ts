// The model activity's handling of huge and hostile tool-call arguments before they go into history.
import { describe, expect, it } from 'vitest';
import { createModelCallActivity } from '../../src/activities/model-call.js';
import { createTranscriptStore } from '../../src/activities/transcript-store.js';
import { parseRef } from '../../src/protocol/content-key.js';
import type { ModelTurn } from '../../src/protocol/model.js';
import { EMPTY_TRANSCRIPT } from '../../src/protocol/transcript-ref.js';
import { createMemoryStore } from '../support/memory-store.js';

function stepReturning(argumentsText: string) {
  const turn: ModelTurn = {
    content: null,
    toolCalls: [{ id: 'a', name: 'WriteFile', arguments: argumentsText, complete: true }],
    finishReason: 'tool_calls',
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    model: 'm',
  };
  return createModelCallActivity({
    transcripts: createTranscriptStore(createMemoryStore()),
    resolveProvider: async () => ({ provider: { name: 'stub', complete: async () => turn }, model: 'm' }),
    resolveTools: () => [],
  });
}

const request = { transcript: EMPTY_TRANSCRIPT, toolNames: [], selection: {}, step: 1 };

describe('the model activity and large arguments', () => {
  it('stores a huge string argument and hands history its reference', async () => {
    const content = 'x'.repeat(100_000);
    const turn = await stepReturning(JSON.stringify({ path: 'a.txt', content }))(request);
    const sent = JSON.parse(turn.toolCalls[0]!.arguments!) as { content: string };
    expect(parseRef(sent.content)).toMatch(/^sha256:/);
  });

  it('returns arguments nested 200,000 levels deep as they came, instead of overflowing the stack', async () => {
    const deep = `{"path":"a.txt","content":"${'y'.repeat(10_000)}","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const turn = await stepReturning(deep)(request);
    expect(turn.toolCalls[0]!.arguments).toBe(deep);
  });
});
