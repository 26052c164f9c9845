// A directory that changed may be stored as a delta on its previous tree: reading resolves the chain to the same
// entries as a whole tree, the chain never grows past MAX_TREE_DELTA_DEPTH, and a stored chain that does not add up is
// refused with the key that is wrong rather than read as some other directory.
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createCheckpointer } from '../../../src/activities/checkpoint/checkpointer.js';
import { compareCheckpoints } from '../../../src/activities/checkpoint/compare.js';
import { createTreeReader } from '../../../src/activities/checkpoint/tree-read.js';
import type { TreeEntry } from '../../../src/protocol/checkpoint.js';
import {
  MAX_TREE_DELTA_DEPTH,
  TREE_DELTA_DEPTH,
  encodeTree,
  parseTree,
  serializeTree,
} from '../../../src/protocol/checkpoint.js';
import { contentKey } from '../../../src/protocol/content-key.js';
import type { ContentStore } from '../../../src/store/content-store.js';
import { useScratchWorkspace } from './scratch-workspace.js';

const scratch = useScratchWorkspace('tree-read');
let workspace: string;
let store: ContentStore;

beforeEach(() => {
  ({ workspace, store } = scratch);
});

const file = (name: string, content: string): TreeEntry => ({
  name,
  type: 'file',
  mode: 0o644,
  size: content.length,
  key: contentKey(content),
});

describe('trees stored as deltas', () => {
  it('read back as the directory was, each change storing a few hundred bytes, the chain 8 long at most', async () => {
    const names = Array.from({ length: 60 }, (_, index) => `module-${String(index).padStart(2, '0')}.ts`);
    for (const name of names) await fs.writeFile(path.join(workspace, name), `// ${name}\n`);
    const checkpointer = createCheckpointer(store);
    await checkpointer.checkpoint(workspace);
    const read = createTreeReader(store);
    const depths: number[] = [];
    for (let step = 0; step < 20; step++) {
      await fs.writeFile(path.join(workspace, names[step]!), `// changed at ${step}\n`);
      const { key } = await checkpointer.checkpoint(workspace);
      const tree = await read(key);
      depths.push(tree.depth);
      const fresh = (await createCheckpointer(store).checkpoint(workspace)).key;
      expect(await compareCheckpoints(store, key, fresh)).toEqual([]);
      expect((await store.get(key)).byteLength).toBeLessThan(tree.depth > 0 ? 400 : 10_000);
    }
    expect(depths).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2]);
    expect(Math.max(...depths)).toBe(TREE_DELTA_DEPTH);
  });

  it('stores at most one directory of a step whole to end its chain, however many chains are long', async () => {
    const deepest = path.join(workspace, 'a', 'b');
    await fs.mkdir(deepest, { recursive: true });
    for (const directory of [workspace, path.join(workspace, 'a'), deepest]) {
      for (let index = 0; index < 30; index++) await fs.writeFile(path.join(directory, `f${index}.ts`), `${index}\n`);
    }
    const checkpointer = createCheckpointer(store);
    await checkpointer.checkpoint(workspace);
    const read = createTreeReader(store);
    let depths = [0, 0, 0];
    for (let step = 0; step < 40; step++) {
      await fs.writeFile(path.join(deepest, `f${step % 30}.ts`), `changed at ${step}\n`);
      const root = await read((await checkpointer.checkpoint(workspace)).key);
      const a = await read(root.entries.find((entry) => entry.name === 'a')!.key!);
      const b = await read(a.entries.find((entry) => entry.name === 'b')!.key!);
      const now = [root.depth, a.depth, b.depth];
      expect(now.filter((depth, index) => depth === 0 && depths[index]! > 0).length).toBeLessThanOrEqual(1);
      expect(Math.max(...now)).toBeLessThanOrEqual(MAX_TREE_DELTA_DEPTH);
      depths = now;
    }
  });

  it('stores a small directory whole, where a delta would not be much smaller', () => {
    const base = [file('a', 'a'), file('b', 'b')];
    const key = contentKey(serializeTree({ checkpoint: 1, entries: base }));
    expect(encodeTree([file('a', 'a2'), file('b', 'b')], { key, entries: base, depth: 0 }, { used: false })).toEqual({
      text: serializeTree({ checkpoint: 1, entries: [file('a', 'a2'), file('b', 'b')] }),
      depth: 0,
    });
  });

  it('refuses a chain whose depths do not add up, and a depth past the limit', async () => {
    const entries = Array.from({ length: 10 }, (_, index) => file(`f${index}`, `${index}`));
    const whole = await store.put(serializeTree({ checkpoint: 1, entries }));
    const delta = encodeTree(entries.slice(1), { key: whole, entries, depth: 2 }, { used: false });
    expect(delta.depth).toBe(3);
    const forged = await store.put(delta.text);
    await expect(createTreeReader(store)(forged)).rejects.toThrow(
      `Stored content ${forged} is not a checkpoint tree: a delta of depth 3 on a tree of depth 0.`,
    );
    const tooDeep = delta.text.replace('"depth":3', '"depth":99');
    expect(() => parseTree('sha256:x', tooDeep)).toThrow('its depth is not 1 to 16');
    expect(() => parseTree('sha256:x', '{"base":"nope","checkpoint":1,"depth":1,"set":[],"unset":[]}')).toThrow(
      'its base is not a content key',
    );
  });
});
