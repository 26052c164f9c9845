// Node: the content-addressed store. Every message, tool result and spilled output is written once under the hash of
// its bytes and read back by that key from any worker and from the CLI.
import type { ContentKey } from '../core/content-key.js';

/** One stored object, as listed for garbage collection. */
export interface StoredObject {
  key: ContentKey;
  bytes: number;
  /** When the object was first written. */
  writtenAt: Date;
}

/** A content-addressed store: content is immutable, so `put` of content already there writes nothing. */
export interface ContentStore {
  /** Where the content lives, for messages: `directory /var/lib/…/store`, `s3://bucket/prefix (http://…)`. */
  readonly description: string;
  /** Stores the content (UTF-8 for a string) and returns its key; idempotent. */
  put(content: string | Uint8Array): Promise<ContentKey>;
  /** The content's bytes; throws MissingContentError (non-retryable in activities) when the key is not stored. */
  get(key: ContentKey): Promise<Uint8Array>;
  has(key: ContentKey): Promise<boolean>;
  list(): AsyncIterable<StoredObject>;
  delete(key: ContentKey): Promise<void>;
}

/** A key that is not in the store: the content is gone (collected, or never written), never an empty value. */
export class MissingContentError extends Error {
  constructor(
    readonly key: ContentKey,
    readonly store: string,
  ) {
    super(`Stored content ${key} is missing from ${store}.`);
    this.name = 'MissingContentError';
  }
}
