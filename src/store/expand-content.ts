// Node: makes a value that carries content keys readable for a person (the Web UI's codec endpoint). Reference strings
// become the content they stand for, a bare key is shown with its content a bounded number of hops deep, and content
// over a size limit is cut with the command that prints all of it. The result is for display only, never agent input.
import type { ContentKey } from '../protocol/content-key.js';
import { isContentKey, parseRef } from '../protocol/content-key.js';
import type { ContentStore } from './content-store.js';
import { MissingContentError } from './content-store.js';

/** How far and how much one value is expanded. */
export interface ExpandLimits {
  /**
   * Key-to-content hops followed from the value. 2 shows a transcript head's node and that node's messages; the keys
   * inside those (the link to the previous node) stay keys, so a long chain is never walked whole.
   */
  maxDepth: number;
  /** Content over this many bytes is cut to that many, with a note naming `durable-agent output KEY`. */
  maxContentBytes: number;
  /** Bytes of stored content one value shows in all; keys met after that stay keys, each with a note. */
  maxTotalBytes: number;
}

/** 64 KiB per piece of content and 1 MiB per value keep a history page in the Web UI responsive. */
export const defaultExpandLimits: ExpandLimits = {
  maxDepth: 2,
  maxContentBytes: 64 * 1024,
  maxTotalBytes: 1024 * 1024,
};

/** Expands values against one store; values expanded by the same expander share their reads. */
export interface ContentExpander {
  expand(value: unknown): Promise<unknown>;
}

// A reference inside referenced content is followed only this far: keys cannot form a cycle, but nothing else would
// bound a chain of them.
const MAX_REF_NESTING = 4;
// Reads started ahead of the walk per array or object, so a node's messages load in parallel yet show in order.
const PREFETCH = 64;

type Loaded = { bytes: Uint8Array } | { failure: string };

type Shown =
  | { kind: 'content'; content: unknown }
  | { kind: 'cut'; bytes: number; preview: string; note: string }
  | { kind: 'note'; bytes?: number; note: string };

function isTranscriptNode(value: unknown): value is { prev: unknown; messages: unknown[] } {
  return (
    typeof value === 'object' &&
    value !== null &&
    'prev' in value &&
    Array.isArray((value as { messages?: unknown }).messages)
  );
}

/** An expander over `store`; keep one per request, since it caches what it read. */
export function createContentExpander(store: ContentStore, limits: Partial<ExpandLimits> = {}): ContentExpander {
  const { maxDepth, maxContentBytes, maxTotalBytes } = { ...defaultExpandLimits, ...limits };
  const cache = new Map<ContentKey, Promise<Loaded>>();

  const load = (key: ContentKey): Promise<Loaded> => {
    let loaded = cache.get(key);
    if (!loaded) {
      loaded = store.get(key).then(
        (bytes) => ({ bytes }),
        (error: unknown) => ({ failure: failureNote(key, store, error) }),
      );
      cache.set(key, loaded);
    }
    return loaded;
  };

  return {
    async expand(value) {
      let left = maxTotalBytes;
      const output = (key: ContentKey) => `durable-agent output ${key}`;
      const spentNote = (key: ContentKey) =>
        `not shown: this value already shows ${maxTotalBytes} bytes of stored content; all of it: ${output(key)}`;

      /** The content of a key, or its first bytes, or why it is not shown; charges the budget. */
      const read = async (key: ContentKey): Promise<Shown> => {
        if (left <= 0) return { kind: 'note', note: spentNote(key) };
        const loaded = await load(key);
        if ('failure' in loaded) return { kind: 'note', note: loaded.failure };
        const { bytes } = loaded;
        const text = utf8(bytes);
        if (text === undefined)
          return {
            kind: 'note',
            bytes: bytes.byteLength,
            note: `binary content (${bytes.byteLength} bytes); ${output(key)}`,
          };
        if (bytes.byteLength > maxContentBytes) {
          left -= maxContentBytes;
          // A multi-byte character split at the cut decodes to U+FFFD; drop it rather than show a stray glyph.
          const preview = new TextDecoder().decode(bytes.subarray(0, maxContentBytes)).replace(/\uFFFD+$/, '');
          const note = `cut at ${maxContentBytes} of ${bytes.byteLength} bytes; all of it: ${output(key)}`;
          return { kind: 'cut', bytes: bytes.byteLength, preview, note };
        }
        left -= bytes.byteLength;
        return { kind: 'content', content: parseIfJson(text) };
      };

      const expandsKey = (value: unknown, depth: number, nesting: number): ContentKey | undefined => {
        const ref = parseRef(value);
        if (ref) return nesting < MAX_REF_NESTING ? ref : undefined;
        return depth < maxDepth && isContentKey(value) ? value : undefined;
      };

      const prefetch = (values: unknown[], depth: number, nesting: number) => {
        let started = 0;
        for (const value of values) {
          if (started >= PREFETCH || left <= 0) return;
          const key = expandsKey(value, depth, nesting);
          if (key) {
            void load(key);
            started++;
          }
        }
      };

      /** A bare key: shown with its content, one hop deeper. */
      const showKey = async (key: ContentKey, depth: number): Promise<unknown> => {
        const shown = await read(key);
        // A transcript node shows the messages it added, newest step first on the page; the link back stays a key.
        if (shown.kind === 'content' && isTranscriptNode(shown.content)) {
          return {
            key,
            content: { messages: await walk(shown.content.messages, depth + 1, 0), prev: shown.content.prev },
          };
        }
        if (shown.kind === 'content') return { key, content: await walk(shown.content, depth + 1, 0) };
        if (shown.kind === 'cut') return { key, bytes: shown.bytes, content: shown.preview, note: shown.note };
        return { key, ...(shown.bytes !== undefined ? { bytes: shown.bytes } : {}), note: shown.note };
      };

      /** A reference string: replaced by its content in place, at the same depth (it is part of this value). */
      const showRef = async (key: ContentKey, depth: number, nesting: number): Promise<unknown> => {
        const shown = await read(key);
        if (shown.kind === 'content') return await walk(shown.content, depth, nesting + 1);
        if (shown.kind === 'cut') return `${shown.preview}…\n[${shown.note}]`;
        return `[${shown.note}]`;
      };

      const walk = async (value: unknown, depth: number, nesting: number): Promise<unknown> => {
        if (typeof value === 'string') {
          const key = expandsKey(value, depth, nesting);
          if (!key) return value;
          return parseRef(value) ? await showRef(key, depth, nesting) : await showKey(key, depth);
        }
        if (Array.isArray(value)) {
          prefetch(value, depth, nesting);
          const items: unknown[] = [];
          for (const item of value) items.push(await walk(item, depth, nesting));
          return items;
        }
        if (value !== null && typeof value === 'object') {
          const entries = Object.entries(value as Record<string, unknown>);
          prefetch(
            entries.map(([, child]) => child),
            depth,
            nesting,
          );
          const expanded: [string, unknown][] = [];
          for (const [name, child] of entries) {
            // `{ "sha256:…": "<content>" }` (content written along with an activity call) is that key's content:
            // shown parsed, with the keys inside it left as keys, since the value usually shows them elsewhere (a
            // transcript node written along is also the transcript's head).
            const shown =
              isContentKey(name) && typeof child === 'string'
                ? await walk(parseIfJson(child), maxDepth, nesting)
                : await walk(child, depth, nesting);
            expanded.push([name, shown]);
          }
          // fromEntries defines properties, so a "__proto__" member of parsed JSON stays a plain member.
          return Object.fromEntries(expanded);
        }
        return value;
      };

      return await walk(value, 0, 0);
    },
  };
}

/** The text of UTF-8 content; undefined for anything else (a stored protobuf payload, a binary spill). */
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

// Only objects and arrays: a stored argument that reads "42" or "true" is a string, and stays one.
function parseIfJson(text: string): unknown {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function failureNote(key: ContentKey, store: ContentStore, error: unknown): string {
  // "Stored content sha256:… is missing from directory …": the store's own words name the key and the place.
  if (error instanceof MissingContentError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return `${key} could not be read from ${store.description}: ${message}`;
}
