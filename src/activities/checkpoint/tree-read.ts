// Node: a directory's entries read from the content store, a delta (src/protocol/checkpoint.ts) resolved through the
// trees it is based on.
import type { ContentKey } from '../../protocol/content-key.js';
import type { TreeEntry } from '../../protocol/checkpoint.js';
import { applyTreeDelta, parseTree } from '../../protocol/checkpoint.js';
import type { ContentStore } from '../../store/content-store.js';

/** A directory's entries, and how many deltas its stored tree is from a whole one. */
export interface ReadTree {
  entries: TreeEntry[];
  depth: number;
}

export type TreeReader = (key: ContentKey) => Promise<ReadTree>;

/**
 * Reads trees, each once for the reader's life: the trees of one directory at two steps share their bases, so a
 * comparison reads them once. A delta must be one deeper than its base, so no chain of stored trees can loop.
 */
export function createTreeReader(store: ContentStore): TreeReader {
  const read = new Map<ContentKey, Promise<ReadTree>>();
  const reader: TreeReader = (key) => {
    let tree = read.get(key);
    if (!tree) {
      tree = readOnce(key);
      read.set(key, tree);
    }
    return tree;
  };
  async function readOnce(key: ContentKey): Promise<ReadTree> {
    const bytes = await store.get(key);
    const tree = parseTree(key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    if (!('base' in tree)) return { entries: tree.entries, depth: 0 };
    const base = await reader(tree.base);
    if (base.depth !== tree.depth - 1) {
      throw new Error(
        `Stored content ${key} is not a checkpoint tree: a delta of depth ${tree.depth} on a tree of depth ${base.depth}.`,
      );
    }
    return { entries: applyTreeDelta(base.entries, tree), depth: tree.depth };
  }
  return reader;
}
