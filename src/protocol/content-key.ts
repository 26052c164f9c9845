// Workflow-safe: the key of a piece of stored content, and the reference string that stands for it inside a value.
// The workflow hashes what it creates itself (system prompt, workflow-made envelopes, transcript nodes), so the same
// key is computed wherever the content is: in the workflow, in an activity, in the CLI.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** `sha256:<64 hex digits>` of the content's UTF-8 bytes. */
export type ContentKey = `sha256:${string}`;

const KEY = /^sha256:[0-9a-f]{64}$/;
const KEYS = /sha256:[0-9a-f]{64}/g;

/**
 * Marks a string value that stands for stored content (a tool-call argument or a model's answer too large to travel
 * through history). The NUL byte keeps it apart from anything a model writes: tool paths and commands reject NUL.
 */
export const REF_PREFIX = '\u0000ref:';

/** The content key of a string (UTF-8) or of raw bytes. */
export function contentKey(content: string | Uint8Array): ContentKey {
  const bytes = typeof content === 'string' ? utf8ToBytes(content) : content;
  return `sha256:${bytesToHex(sha256(bytes))}`;
}

export function isContentKey(value: unknown): value is ContentKey {
  return typeof value === 'string' && KEY.test(value);
}

/** The string that stands for stored content inside a value: `\0ref:sha256:…`. */
export function refString(key: ContentKey): string {
  return `${REF_PREFIX}${key}`;
}

/** The key a reference string stands for; undefined for any other value. */
export function parseRef(value: unknown): ContentKey | undefined {
  if (typeof value !== 'string' || !value.startsWith(REF_PREFIX)) return undefined;
  const key = value.slice(REF_PREFIX.length);
  return isContentKey(key) ? key : undefined;
}

/** Every key mentioned in a text (stored content, a query answer): what a garbage collector must keep alive. */
export function referencedKeys(text: string): ContentKey[] {
  return [...new Set(text.match(KEYS) ?? [])] as ContentKey[];
}
