// The activity side of the content store: transcripts rebuilt from keys through the cache, huge strings stored and
// expanded again, and a missing key as a failure an operator can read, never an empty message.
import type { Checkpointer } from '../../src/activities/checkpoint/checkpointer.js';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { storedToolActivity } from '../../src/activities/stored-results.js';
import { INLINE_STRING_BYTES, createTranscriptStore } from '../../src/activities/transcript-store.js';
import { REF_PREFIX, contentKey, refString } from '../../src/protocol/content-key.js';
import { okEnvelope } from '../../src/protocol/envelope.js';
import type { PendingWrites } from '../../src/protocol/transcript-ref.js';
import { EMPTY_TRANSCRIPT, appendMessages, workflowMessage } from '../../src/protocol/transcript-ref.js';
import { createMemoryStore } from '../support/memory-store.js';

function chainOf(steps: number, pending: PendingWrites) {
  let transcript = EMPTY_TRANSCRIPT;
  for (let step = 0; step < steps; step++) {
    const message = workflowMessage({ role: 'user', content: `step ${step}` }, pending);
    transcript = appendMessages(transcript, [{ ...message, role: 'user' }], pending);
  }
  return transcript;
}

// These calls ask for no checkpoint.
const unusedCheckpointer: Checkpointer = {
  checkpoint: () => Promise.reject(new Error('no checkpoint was asked for')),
};

describe('transcript store', () => {
  it('rebuilds a transcript from its head and reads only what is new the next time', async () => {
    const store = createMemoryStore();
    const transcripts = createTranscriptStore(store);
    const pending: PendingWrites = {};
    const first = chainOf(3, pending);
    await transcripts.writeAll(pending);
    expect(await transcripts.load(first)).toEqual([0, 1, 2].map((step) => ({ role: 'user', content: `step ${step}` })));

    const fresh = createTranscriptStore(store);
    await fresh.load(first);
    const readsBefore = store.reads.length;
    const more: PendingWrites = {};
    const message = workflowMessage({ role: 'user', content: 'step 3' }, more);
    const second = appendMessages(first, [{ ...message, role: 'user' }], more);
    await store.put(more[message.key]!);
    await store.put(more[second.head!]!);
    expect(await fresh.load(second)).toHaveLength(4);
    // The new node and the new message; everything older came from the cache.
    expect(store.reads.slice(readsBefore)).toEqual([second.head, message.key]);
  });

  it('refuses content written under a key it does not hash to', async () => {
    const transcripts = createTranscriptStore(createMemoryStore());
    await expect(transcripts.writeAll({ [contentKey('a')]: 'b' })).rejects.toMatchObject({
      type: 'StoredContentCorrupt',
      nonRetryable: true,
    });
  });

  it('stores strings over the inline limit and expands them back, inside tool-call arguments too', async () => {
    const transcripts = createTranscriptStore(createMemoryStore());
    const big = 'x'.repeat(INLINE_STRING_BYTES + 1);
    const small = { path: 'a.txt', content: big };
    const external = await transcripts.externalize(small);
    expect(external.path).toBe('a.txt');
    expect(external.content.startsWith(REF_PREFIX)).toBe(true);
    expect(await transcripts.expand(external)).toEqual(small);

    const pending: PendingWrites = {};
    const assistant = workflowMessage(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c', type: 'function', function: { name: 'WriteFile', arguments: JSON.stringify(external) } },
        ],
      },
      pending,
    );
    const transcript = appendMessages(EMPTY_TRANSCRIPT, [{ ...assistant, role: 'assistant' }], pending);
    await transcripts.writeAll(pending);
    const [loaded] = await transcripts.load(transcript);
    expect(loaded?.role === 'assistant' && JSON.parse(loaded.tool_calls![0]!.function.arguments)).toEqual(small);
  });

  it('fails a model call on a missing key with a non-retryable failure naming the key and the store', async () => {
    const transcripts = createTranscriptStore(createMemoryStore('directory /srv/store'));
    const pending: PendingWrites = {};
    const transcript = chainOf(1, pending); // never written
    const failure = await transcripts.load(transcript).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'StoredContentMissing', nonRetryable: true });
    expect((failure as Error).message).toBe(`Stored content ${transcript.head} is missing from directory /srv/store.`);
  });

  it('fails a tool call whose argument is no longer stored, before running the tool', async () => {
    const transcripts = createTranscriptStore(createMemoryStore('directory /srv/store'));
    let ran = false;
    const activity = storedToolActivity(
      'WriteFile',
      async (context) => {
        ran = true;
        return { envelope: okEnvelope({ text: 'written', context: context.context }) };
      },
      transcripts,
      { hostToolQueue: undefined, checkpointer: unusedCheckpointer },
    );
    const gone = contentKey('the file the model wrote');
    const request = {
      taskId: 't',
      turn: 1,
      index: 0,
      callId: 'c',
      workspace: '/tmp',
      input: { path: 'a.txt', content: refString(gone) },
      paramsInput: {},
    };
    await expect(activity(request)).rejects.toMatchObject({
      type: 'StoredContentMissing',
      message: `Stored content ${gone} is missing from directory /srv/store.`,
    });
    expect(ran).toBe(false);
  });

  it('answers elsewhere, touching nothing, when a local read lands on a worker that does not own the workspace', async () => {
    const activity = storedToolActivity(
      'ReadFile',
      async () => {
        throw new Error('must not run');
      },
      createTranscriptStore(createMemoryStore()),
      { hostToolQueue: 'q@host-a', checkpointer: unusedCheckpointer },
    );
    const request = {
      taskId: 't',
      turn: 1,
      index: 0,
      callId: 'c',
      workspace: '/tmp',
      input: { path: 'a.txt' },
      paramsInput: {},
      onlyOnHost: 'q@host-b',
    };
    expect(await activity(request)).toEqual({ elsewhere: true });
  });
});
