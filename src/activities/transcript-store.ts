// Node: the transcript side of the content store, as the activities use it. Messages are immutable, so an in-worker
// cache keyed by content key is always right; a step reads from the store only what is new since the last one.
import { ApplicationFailure } from '@temporalio/common';
import { LRUCache } from 'lru-cache';
import type { ContentKey } from '../protocol/content-key.js';
import { contentKey, parseRef, REF_PREFIX, refString } from '../protocol/content-key.js';
import type { ChatMessage } from '../protocol/model.js';
import type { MessageRef, PendingWrites, TranscriptRef } from '../protocol/transcript-ref.js';
import { parseNode, serializeMessage, tokensOf } from '../protocol/transcript-ref.js';
import type { ContentStore } from '../store/content-store.js';
import { MissingContentError } from '../store/content-store.js';

/** Strings longer than this in a model's output travel through history as references to stored content. */
export const INLINE_STRING_BYTES = 8 * 1024;

/** Default bound of the in-worker cache (decoded text, by characters). */
const DEFAULT_CACHE_CHARS = 256 * 1024 * 1024;

export interface TranscriptStore {
  readonly store: ContentStore;
  /** Stores content the workflow made (checking each key), so the reads that follow find it. */
  writeAll(writes: PendingWrites | undefined): Promise<void>;
  /**
   * Checks each key of content the workflow made (throwing at once on a mismatch) and makes it readable here at once;
   * the promise settles when it is stored. What another worker may need must be awaited before the activity returns.
   */
  stage(writes: PendingWrites | undefined): Promise<void>;
  /** The transcript's messages in order, with every reference expanded. */
  load(transcript: TranscriptRef): Promise<ChatMessage[]>;
  /** Stores a message and returns its reference. */
  putMessage(message: ChatMessage): Promise<MessageRef>;
  /** Stored text by key. */
  text(key: ContentKey): Promise<string>;
  /** A copy of a value with every reference string replaced by its content (tool arguments, answers). */
  expand<T>(value: T): Promise<T>;
  /** A copy of a value with every string longer than INLINE_STRING_BYTES stored and replaced by its reference. */
  externalize<T>(value: T): Promise<T>;
}

export function createTranscriptStore(store: ContentStore, options: { cacheChars?: number } = {}): TranscriptStore {
  const cache = new LRUCache<string, string>({
    maxSize: options.cacheChars ?? DEFAULT_CACHE_CHARS,
    sizeCalculation: (value) => Math.max(1, value.length),
  });
  // Parsed messages, so a step parses only the messages that are new since the last one.
  const messages = new LRUCache<string, ChatMessage>({ maxSize: options.cacheChars ?? DEFAULT_CACHE_CHARS });
  // Content being stored (stage): readable meanwhile, but not in `cache`, whose entries are known to be stored.
  const staged = new Map<string, { content: string; writers: number }>();

  async function text(key: ContentKey): Promise<string> {
    const cached = cache.get(key) ?? staged.get(key)?.content;
    if (cached !== undefined) return cached;
    let bytes: Uint8Array;
    try {
      bytes = await store.get(key);
    } catch (error) {
      throw missingContentFailure(error);
    }
    const value = Buffer.from(bytes).toString('utf8');
    cache.set(key, value);
    return value;
  }

  async function put(content: string): Promise<ContentKey> {
    const key = await store.put(content);
    cache.set(key, content);
    return key;
  }

  async function expand<T>(value: T): Promise<T> {
    return mapStrings(value, async (string) => {
      const key = parseRef(string);
      return key ? await text(key) : string;
    });
  }

  async function externalize<T>(value: T): Promise<T> {
    return mapStrings(value, async (string) =>
      string.length > INLINE_STRING_BYTES ? refString(await put(string)) : string,
    );
  }

  async function message(key: ContentKey): Promise<ChatMessage> {
    const cached = messages.get(key);
    if (cached) return cached;
    const stored = await text(key);
    const parsed = await expandMessage(JSON.parse(stored) as ChatMessage);
    messages.set(key, parsed, { size: Math.max(1, stored.length) });
    return parsed;
  }

  // A tool call's arguments are a JSON text whose string values may be references (huge file contents the model
  // wrote): the model must see the arguments it produced, so they are parsed, expanded and written back.
  async function expandMessage(stored: ChatMessage): Promise<ChatMessage> {
    const expanded = await expand(stored);
    if (expanded.role !== 'assistant' || !expanded.tool_calls) return expanded;
    const calls = await Promise.all(
      expanded.tool_calls.map(async (call) => {
        if (!call.function.arguments.includes(ESCAPED_REF_PREFIX)) return call;
        const args = await expand(JSON.parse(call.function.arguments) as unknown);
        return { ...call, function: { ...call.function, arguments: JSON.stringify(args) } };
      }),
    );
    return { ...expanded, tool_calls: calls };
  }

  function stage(writes: PendingWrites | undefined): Promise<void> {
    const unstored = Object.entries(writes ?? {}).filter(([key]) => !cache.has(key));
    for (const [key, content] of unstored) {
      if (contentKey(content) !== key)
        throw ApplicationFailure.nonRetryable(
          `Content written as ${key} does not hash to that key.`,
          'StoredContentCorrupt',
        );
    }
    const writing = unstored.map(async ([key, content]) => {
      const entry = staged.get(key) ?? { content, writers: 0 };
      entry.writers++;
      staged.set(key, entry);
      try {
        await put(content);
      } finally {
        if (--entry.writers === 0) staged.delete(key);
      }
    });
    return Promise.all(writing).then(() => undefined);
  }

  return {
    store,
    writeAll: async (writes) => stage(writes),
    stage,
    async load(transcript) {
      const keys: ContentKey[][] = [];
      for (let node = transcript.head; node;) {
        const parsed = parseNode(node, await text(node));
        keys.push(parsed.messages);
        node = parsed.prev;
      }
      return Promise.all(keys.reverse().flat().map(message));
    },
    async putMessage(chat) {
      const serialized = serializeMessage(chat);
      return { key: await put(serialized), tokens: tokensOf(serialized) };
    },
    text,
    expand,
    externalize,
  };
}

const ESCAPED_REF_PREFIX = JSON.stringify(REF_PREFIX).slice(1, -1);

/** A key the store does not have: the run cannot go on without it, and retrying will not bring it back. */
export function missingContentFailure(error: unknown): unknown {
  if (!(error instanceof MissingContentError)) return error;
  return ApplicationFailure.create({
    type: 'StoredContentMissing',
    message: error.message,
    nonRetryable: true,
    details: [{ key: error.key, store: error.store }],
  });
}

/** `value` with every string in it, at any depth of arrays and objects, replaced by what `replace` makes of it. */
async function mapStrings<T>(value: T, replace: (string: string) => Promise<string>): Promise<T> {
  if (typeof value === 'string') return (await replace(value)) as T;
  if (Array.isArray(value)) return (await Promise.all(value.map((item) => mapStrings(item, replace)))) as T;
  if (value && typeof value === 'object') {
    const entries = await Promise.all(
      Object.entries(value).map(async ([name, item]) => [name, await mapStrings(item, replace)] as const),
    );
    return Object.fromEntries(entries) as T;
  }
  return value;
}
