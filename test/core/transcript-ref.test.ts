import { describe, expect, it } from 'vitest';
import { contentKey, parseRef, referencedKeys, refString } from '../../src/protocol/content-key.js';
import type { PendingWrites } from '../../src/protocol/transcript-ref.js';
import {
  EMPTY_TRANSCRIPT,
  appendMessages,
  parseNode,
  takeWrites,
  workflowMessage,
} from '../../src/protocol/transcript-ref.js';

describe('content keys', () => {
  it('hash UTF-8 bytes to a sha256 key', () => {
    expect(contentKey('')).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(contentKey('é')).toBe(contentKey(new TextEncoder().encode('é')));
  });

  it('round-trip reference strings and refuse look-alikes', () => {
    const key = contentKey('x');
    expect(parseRef(refString(key))).toBe(key);
    expect(parseRef(key)).toBeUndefined();
    expect(parseRef('\u0000ref:sha256:abc')).toBeUndefined();
    expect(referencedKeys(`a ${key} b ${key} ${refString(contentKey('y'))}`)).toEqual([key, contentKey('y')]);
  });
});

describe('transcript chain', () => {
  it('appends one node per step and keeps the counters the workflow decides on', () => {
    const pending: PendingWrites = {};
    const system = workflowMessage({ role: 'system', content: 'sys' }, pending);
    const user = workflowMessage({ role: 'user', content: 'task' }, pending);
    const first = appendMessages(
      EMPTY_TRANSCRIPT,
      [
        { ...system, role: 'system' },
        { ...user, role: 'user' },
      ],
      pending,
    );
    expect(first).toMatchObject({
      messages: 2,
      tokens: system.tokens + user.tokens,
      tailTokens: system.tokens + user.tokens,
    });
    expect(parseNode(first.head!, pending[first.head!]!)).toEqual({ prev: null, messages: [system.key, user.key] });

    const assistant = workflowMessage({ role: 'assistant', content: null, tool_calls: [] }, pending);
    const tool = workflowMessage({ role: 'tool', tool_call_id: 'c', content: '{}' }, pending);
    const second = appendMessages(
      first,
      [
        { ...assistant, role: 'assistant' },
        { ...tool, role: 'tool' },
      ],
      pending,
    );
    expect(second.messages).toBe(4);
    expect(second.tailTokens).toBe(tool.tokens);
    expect(parseNode(second.head!, pending[second.head!]!).prev).toBe(first.head);
    // Every pending write is stored under the hash of its own content.
    for (const [key, content] of Object.entries(pending)) expect(contentKey(content)).toBe(key);
  });

  it('stays the same size however long the chain grows', () => {
    const pending: PendingWrites = {};
    let transcript = EMPTY_TRANSCRIPT;
    const sizes: number[] = [];
    for (let step = 0; step < 1000; step++) {
      const message = workflowMessage({ role: 'user', content: `step ${step}` }, pending);
      transcript = appendMessages(transcript, [{ ...message, role: 'user' }], pending);
      sizes.push(JSON.stringify(transcript).length);
    }
    expect(sizes.at(-1)! - sizes[9]!).toBeLessThan(10);
  });

  it('rejects content that is not a node', () => {
    expect(() => parseNode('k', '{"role":"user"}')).toThrow(/not a transcript node/);
  });

  it('forgets pending writes only once they were stored, and never ones made since', () => {
    const state = { pendingWrites: { a: '1' } as PendingWrites };
    const taken = takeWrites(state);
    state.pendingWrites.b = '2';
    expect(taken.content).toEqual({ a: '1' });
    taken.stored();
    expect(state.pendingWrites).toEqual({ b: '2' });
  });
});
