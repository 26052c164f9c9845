// A content store in a Map, for tests that need the ContentStore contract but not a real directory or bucket.
import type { ContentKey } from '../../src/protocol/content-key.js';
import { contentKey } from '../../src/protocol/content-key.js';
import type { ContentStore, DeleteOptions, StoredObject } from '../../src/store/content-store.js';
import { MissingContentError } from '../../src/store/content-store.js';

/** A memory store that also counts reads, so a test can see what was fetched. */
export interface MemoryStore extends ContentStore {
  readonly objects: Map<ContentKey, { bytes: Uint8Array; writtenAt: Date }>;
  /** Keys passed to `get`, in order. */
  readonly reads: ContentKey[];
}

/** A fresh, empty memory store. */
export function createMemoryStore(description = 'memory'): MemoryStore {
  const objects = new Map<ContentKey, { bytes: Uint8Array; writtenAt: Date }>();
  const reads: ContentKey[] = [];
  return {
    description,
    objects,
    reads,
    async put(content) {
      const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content.slice();
      const key = contentKey(bytes);
      objects.set(key, { bytes, writtenAt: new Date() });
      return key;
    },
    async get(key) {
      reads.push(key);
      const object = objects.get(key);
      if (!object) throw new MissingContentError(key, description);
      return object.bytes.slice();
    },
    async has(key) {
      return objects.has(key);
    },
    async *list(): AsyncIterable<StoredObject> {
      for (const [key, object] of objects) yield { key, bytes: object.bytes.byteLength, writtenAt: object.writtenAt };
    },
    async delete(key: ContentKey, options: DeleteOptions = {}) {
      const object = objects.get(key);
      if (!object) return false;
      if (options.ifWrittenBefore && object.writtenAt >= options.ifWrittenBefore) return false;
      return objects.delete(key);
    },
  };
}
