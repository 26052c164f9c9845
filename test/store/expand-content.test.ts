import { describe, expect, it } from 'vitest';
import { contentKey, refString } from '../../src/protocol/content-key.js';
import { createContentExpander } from '../../src/store/expand-content.js';
import { createMemoryStore } from '../support/memory-store.js';

/** A transcript of `length` nodes, one message each, as the workflow stores it; returns the head's key. */
async function storeChain(store: ReturnType<typeof createMemoryStore>, length: number) {
  let prev: string | null = null;
  const messages: string[] = [];
  for (let index = 0; index < length; index++) {
    const message = await store.put(JSON.stringify({ role: 'user', content: `message ${index}` }));
    messages.push(message);
    prev = await store.put(JSON.stringify({ prev, messages: [message] }));
  }
  return { head: prev!, messages };
}

describe('content expansion', () => {
  it('shows a transcript head with its node and the node’s messages, but not the whole chain', async () => {
    const store = createMemoryStore();
    const { head, messages } = await storeChain(store, 4);

    const value = await createContentExpander(store).expand({ transcript: { head, messages: 4, tokens: 90 }, step: 3 });

    const node = (value as any).transcript.head;
    expect(node.key).toBe(head);
    expect(node.content.messages).toEqual([{ key: messages[3], content: { role: 'user', content: 'message 3' } }]);
    // The link to the previous node stays a key: the page shows what this step added, never the chain.
    expect(node.content.prev).toMatch(/^sha256:/);
    expect(Object.keys(node.content)).toEqual(['messages', 'prev']);
    expect((value as any).transcript.messages).toBe(4);
    expect((value as any).step).toBe(3);
  });

  it('replaces reference strings in place, parsing JSON content, at any depth of the shown value', async () => {
    const store = createMemoryStore();
    const envelope = { status: 'success', text: 'file contents' };
    const envelopeKey = await store.put(JSON.stringify(envelope));
    const bigArgument = await store.put('x'.repeat(500));
    const message = await store.put(
      JSON.stringify({
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            function: { name: 'WriteFile', arguments: { path: 'a.txt', content: refString(bigArgument) } },
          },
        ],
      }),
    );
    const toolMessage = await store.put(
      JSON.stringify({ role: 'tool', tool_call_id: 'call_1', content: refString(envelopeKey) }),
    );

    const value = (await createContentExpander(store).expand({
      message: { key: toolMessage, bytes: 10, tokens: 2 },
      assistant: message,
    })) as any;

    expect(value.message.key).toEqual({
      key: toolMessage,
      content: { role: 'tool', tool_call_id: 'call_1', content: envelope },
    });
    expect(value.assistant.content.tool_calls[0].function.arguments.content).toBe('x'.repeat(500));
  });

  it('keeps a referenced string that merely looks like a JSON scalar a string', async () => {
    const store = createMemoryStore();
    const key = await store.put('42');
    expect(await createContentExpander(store).expand({ answer: refString(key) })).toEqual({ answer: '42' });
  });

  it('shows content written along with a call under its key, leaving the keys inside it as keys', async () => {
    const store = createMemoryStore();
    const written = JSON.stringify({ role: 'user', content: 'hello' });
    const node = JSON.stringify({ prev: null, messages: [contentKey(written)] });
    await store.put(written);

    const value = await createContentExpander(store).expand({
      writes: { [contentKey(written)]: written, [contentKey(node)]: node },
    });

    expect(value).toEqual({
      writes: {
        [contentKey(written)]: { role: 'user', content: 'hello' },
        [contentKey(node)]: { prev: null, messages: [contentKey(written)] },
      },
    });
    expect(store.reads).toEqual([]);
  });

  it('cuts content over the size limit and says how to read all of it', async () => {
    const store = createMemoryStore();
    const long = await store.put(`${'é'.repeat(40)}`);

    const expander = createContentExpander(store, { maxContentBytes: 11 });
    const value = (await expander.expand({ key: long, ref: refString(long) })) as any;

    expect(value.key).toEqual({
      key: long,
      bytes: 80,
      // 11 bytes end inside the sixth "é": the half character is dropped.
      content: 'ééééé',
      note: `cut at 11 of 80 bytes; all of it: durable-agent output ${long}`,
    });
    expect(value.ref).toBe(`ééééé…\n[cut at 11 of 80 bytes; all of it: durable-agent output ${long}]`);
  });

  it('shows a missing key as a note in place and goes on with the rest', async () => {
    const store = createMemoryStore('directory /tmp/store');
    const gone = contentKey('collected long ago');
    const present = await store.put('still here');

    const value = await createContentExpander(store).expand([gone, refString(gone), refString(present)]);

    expect(value).toEqual([
      { key: gone, note: `Stored content ${gone} is missing from directory /tmp/store.` },
      `[Stored content ${gone} is missing from directory /tmp/store.]`,
      'still here',
    ]);
  });

  it('reports a store that fails to read without failing the expansion', async () => {
    const store = createMemoryStore('s3://bucket/agent');
    const key = await store.put('unreachable');
    store.get = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    expect(await createContentExpander(store).expand({ key })).toEqual({
      key: { key, note: `${key} could not be read from s3://bucket/agent: connect ECONNREFUSED` },
    });
  });

  it('stops showing content once the value’s budget is spent, leaving notes', async () => {
    const store = createMemoryStore();
    const keys = [];
    for (const letter of 'abcd') keys.push(await store.put(letter.repeat(40)));

    const value = (await createContentExpander(store, { maxTotalBytes: 100 }).expand(keys)) as any[];

    expect(value.slice(0, 3).map((shown) => shown.content)).toEqual(['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40)]);
    expect(value[3]).toEqual({
      key: keys[3],
      note: `not shown: this value already shows 100 bytes of stored content; all of it: durable-agent output ${keys[3]}`,
    });
  });

  it('follows only a bounded number of hops and leaves other strings and keys of objects alone', async () => {
    const store = createMemoryStore();
    const inner = await store.put('inner');
    const outer = await store.put(JSON.stringify({ inner }));

    const expanded = await createContentExpander(store, { maxDepth: 1 }).expand({ outer, note: 'sha256:not-a-key' });
    expect(expanded).toEqual({ outer: { key: outer, content: { inner } }, note: 'sha256:not-a-key' });
    expect(await createContentExpander(store, { maxDepth: 0 }).expand(outer)).toBe(outer);
  });

  it('shows binary content as a note and reads each key once per expander', async () => {
    const store = createMemoryStore();
    const binary = await store.put(new Uint8Array([0xff, 0xfe, 0x00, 0x81]));
    const expander = createContentExpander(store);

    const first = await expander.expand([binary, binary]);
    await expander.expand(binary);

    expect(first).toEqual([
      { key: binary, bytes: 4, note: `binary content (4 bytes); durable-agent output ${binary}` },
      { key: binary, bytes: 4, note: `binary content (4 bytes); durable-agent output ${binary}` },
    ]);
    expect(store.reads).toEqual([binary]);
  });

  it('keeps a __proto__ member of stored JSON a plain member', async () => {
    const store = createMemoryStore();
    const key = await store.put('{"__proto__": {"polluted": true}, "ok": 1}');
    const value = (await createContentExpander(store).expand(refString(key))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
