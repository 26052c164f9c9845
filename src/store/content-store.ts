// Node: the content-addressed store. Every message, tool result and spilled output is written once under the hash of
// its bytes and read back by that key from any worker and from the CLI.
import type { ContentKey } from '../protocol/content-key.js';

/** One stored object, as listed for garbage collection. */
export interface StoredObject {
  key: ContentKey;
  bytes: number;
  /** When the object was last written or re-put: a `put` of content already there refreshes it, so a collector sees use. */
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
  /**
   * Removes the object; true when something was removed. With `ifWrittenBefore`, an object re-put since then is kept:
   * a collector passes the time its listing was judged by, so content re-used during the sweep survives it.
   */
  delete(key: ContentKey, options?: DeleteOptions): Promise<boolean>;
}

/** Options of `ContentStore.delete`. */
export interface DeleteOptions {
  /** Delete only when the object's `writtenAt` is still before this time. */
  ifWrittenBefore?: Date;
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

/**
 * Bytes stored under a key that do not hash to it (a damaged disk, a hand-edited object). It is a missing-content error
 * too: reading again gives the same wrong bytes. The store drops the object, so the next `put` of the real content
 * writes it afresh.
 */
export class CorruptContentError extends MissingContentError {
  constructor(key: ContentKey, store: string, actual: ContentKey) {
    super(key, store);
    this.name = 'CorruptContentError';
    this.message = `Stored content ${key} in ${store} is corrupt (its bytes hash to ${actual}); it was removed.`;
  }
}

/** The store cannot be used at all (no such bucket, credentials refused): a configuration problem, not missing content. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/**
 * The store did not answer, or has no room (its server is down, its disk is full): a fault that passes. The message
 * names the store and what is wrong; whoever has done work that must not be repeated waits and tries again.
 */
export class StoreOutageError extends Error {
  override name = 'StoreOutageError';
}
