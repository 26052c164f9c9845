// The checkpointer with a change watch reads only the directories something happened in, so every change must reach
// it: after any sequence of edits, creations, deletions, renames (directories swapped included), .gitignore changes,
// permission changes and writes through a hard link from outside, its checkpoint equals one taken from scratch.
import { randomBytes } from 'node:crypto';
import { utimesSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { STORED_TRUST_MS, createCheckpointer } from '../../../src/activities/checkpoint/checkpointer.js';
import { compareCheckpoints } from '../../../src/activities/checkpoint/compare.js';
import type { ContentKey } from '../../../src/protocol/content-key.js';
import type { ContentStore } from '../../../src/store/content-store.js';
import { useScratchWorkspace } from './scratch-workspace.js';

const scratch = useScratchWorkspace('change-watch');
let workspace: string;
let outside: string;
let store: ContentStore;

beforeEach(() => {
  ({ workspace, outside, store } = scratch);
});

/** The same files: the keys may differ, a directory stored as a delta on one side and whole on the other. */
async function expectSameFiles(left: ContentKey, right: ContentKey): Promise<void> {
  expect(await compareCheckpoints(store, left, right)).toEqual([]);
}

const DIRECTORIES = ['a', 'b', 'a/c', 'b/d', 'a/c/e'];
const NAMES = ['x.txt', 'y.txt', 'z.bin'];

type Operation =
  | {
      kind: 'write' | 'append' | 'delete' | 'chmod' | 'link-outside' | 'write-outside';
      directory: number;
      name: number;
    }
  | { kind: 'mkdir' | 'rmdir' | 'gitignore' | 'ungitignore'; directory: number }
  | { kind: 'swap' | 'move'; directory: number; other: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('write', 'append', 'delete', 'chmod', 'link-outside', 'write-outside'),
    directory: fc.nat(DIRECTORIES.length),
    name: fc.nat(NAMES.length - 1),
  }),
  fc.record({
    kind: fc.constantFrom('mkdir', 'rmdir', 'gitignore', 'ungitignore'),
    directory: fc.nat(DIRECTORIES.length),
  }),
  fc.record({
    kind: fc.constantFrom('swap', 'move'),
    directory: fc.nat(DIRECTORIES.length - 1),
    other: fc.nat(DIRECTORIES.length - 1),
  }),
) as fc.Arbitrary<Operation>;

/** Index DIRECTORIES.length is the root. */
function directoryPath(index: number): string {
  return index === DIRECTORIES.length ? workspace : path.join(workspace, DIRECTORIES[index]!);
}

async function apply(op: Operation, step: number): Promise<void> {
  const directory = directoryPath(op.directory);
  const quiet = { force: true, recursive: true };
  switch (op.kind) {
    case 'write':
    case 'append': {
      await fs.mkdir(directory, { recursive: true });
      const file = path.join(directory, NAMES[op.name]!);
      if (op.kind === 'write') await fs.writeFile(file, randomBytes(8).toString('hex'));
      else await fs.appendFile(file, `${step}`);
      return;
    }
    case 'delete':
      return fs.rm(path.join(directory, NAMES[op.name]!), quiet);
    case 'chmod':
      return fs.chmod(path.join(directory, NAMES[op.name]!), 0o700 ^ ((step % 2) * 0o100)).catch(() => undefined);
    case 'link-outside': {
      const file = path.join(directory, NAMES[op.name]!);
      const twin = path.join(outside, `twin-${step}`);
      await fs.link(file, twin).catch(() => undefined);
      return;
    }
    case 'write-outside': {
      // Through every link made from outside: the workspace's directories see no event for these writes.
      for (const twin of await fs.readdir(outside)) await fs.appendFile(path.join(outside, twin), `${step}`);
      return;
    }
    case 'mkdir':
      return void (await fs.mkdir(directory, { recursive: true }));
    case 'rmdir':
      return op.directory === DIRECTORIES.length ? undefined : fs.rm(directory, quiet);
    case 'gitignore':
      await fs.mkdir(directory, { recursive: true });
      return fs.writeFile(path.join(directory, '.gitignore'), `${NAMES[step % NAMES.length]}\nc/\n`);
    case 'ungitignore':
      return fs.rm(path.join(directory, '.gitignore'), quiet);
    case 'swap':
    case 'move': {
      const from = directoryPath(op.directory);
      const to = directoryPath(op.other);
      if (from === to || to.startsWith(`${from}/`) || from.startsWith(`${to}/`)) return;
      if (op.kind === 'move') {
        await fs.mkdir(path.dirname(to), { recursive: true });
        await fs.rm(to, quiet);
        await fs.rename(from, to).catch(() => undefined);
        return;
      }
      const aside = path.join(workspace, `aside-${step}`);
      await fs.rename(from, aside).catch(() => undefined);
      await fs.rename(to, from).catch(() => undefined);
      await fs.rename(aside, to).catch(() => undefined);
      await fs.rm(aside, quiet);
      return;
    }
  }
}

describe('a checkpointer with a change watch', () => {
  it('records after any sequence of changes what a checkpoint from scratch records', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(operation, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }),
        async (rounds) => {
          await fs.rm(workspace, { recursive: true, force: true });
          await fs.rm(outside, { recursive: true, force: true });
          await fs.mkdir(workspace);
          await fs.mkdir(outside);
          const watched = createCheckpointer(store, { watch: true });
          await watched.checkpoint(workspace);
          let step = 0;
          for (const round of rounds) {
            for (const op of round) await apply(op, step++);
            const fromScratch = await createCheckpointer(store).checkpoint(workspace);
            await expectSameFiles((await watched.checkpoint(workspace)).key, fromScratch.key);
          }
        },
      ),
      { numRuns: 40, seed: 20261207 },
    );
  });

  it('reads only the directories something happened in', async () => {
    for (let top = 0; top < 10; top++) {
      for (let file = 0; file < 10; file++) {
        await fs.mkdir(path.join(workspace, `top${top}`), { recursive: true });
        const name = path.join(workspace, `top${top}`, `f${file}`);
        await fs.writeFile(name, `${top}/${file}`);
        // An hour old: the stat cache trusts it (a file written within two seconds is read again).
        await fs.utimes(name, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
      }
    }
    const checkpointer = createCheckpointer(store, { watch: true });
    const first = await checkpointer.checkpoint(workspace);
    expect(first.hashed).toBe(100);
    expect(first.directoriesRead).toBe(11);
    const quiet = await checkpointer.checkpoint(workspace);
    expect(quiet.key).toBe(first.key);
    expect(quiet.files).toBe(100);
    expect(quiet.directoriesRead).toBe(0);

    await fs.writeFile(path.join(workspace, 'top3', 'f4'), 'changed');
    const changed = await checkpointer.checkpoint(workspace);
    expect(changed.key).not.toBe(first.key);
    expect(changed.hashed).toBe(1);
    expect(changed.directoriesRead).toBe(2);
    await expectSameFiles(changed.key, (await createCheckpointer(store).checkpoint(workspace)).key);
  });

  it('sees a write through a hard link from outside the workspace, which raises no event in it', async () => {
    await fs.mkdir(path.join(workspace, 'src'));
    const file = path.join(workspace, 'src', 'shared.txt');
    await fs.writeFile(file, 'before');
    await fs.link(file, path.join(outside, 'twin'));
    const checkpointer = createCheckpointer(store, { watch: true });
    const before = await checkpointer.checkpoint(workspace);
    await checkpointer.checkpoint(workspace);

    await fs.appendFile(path.join(outside, 'twin'), ' and after');
    const after = await checkpointer.checkpoint(workspace);
    expect(after.key).not.toBe(before.key);
    await expectSameFiles(after.key, (await createCheckpointer(store).checkpoint(workspace)).key);
  });

  it('reads the whole workspace after more events than the kernel may have kept', async () => {
    await fs.mkdir(path.join(workspace, 'build'));
    await fs.mkdir(path.join(workspace, 'src'));
    const checkpointer = createCheckpointer(store, { watch: true });
    await checkpointer.checkpoint(workspace);
    // Half the kernel's queue (max_queued_events) of events: beyond it, events may have been dropped unreported.
    const queue = Number((await fs.readFile('/proc/sys/fs/inotify/max_queued_events', 'utf8')).trim());
    const pair = [path.join(workspace, 'build', 'a.o'), path.join(workspace, 'build', 'b.o')];
    for (const file of pair) writeFileSync(file, '');
    // Two files in turn: the kernel merges an event only into an equal one just before it.
    for (let index = 0; index <= queue / 2; index++) utimesSync(pair[index % 2]!, index, index);
    const after = await checkpointer.checkpoint(workspace);
    expect(after.directoriesRead).toBe(3);
    expect((await checkpointer.checkpoint(workspace)).directoriesRead).toBe(0);
  });

  it('reads and stores again a quiet directory whose oldest object was stored over an hour ago', async () => {
    for (let index = 0; index < 20; index++) {
      const file = path.join(workspace, `dir${index % 2}`, `file${index}.txt`);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, `content ${index}`);
      await fs.utimes(file, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    }
    let puts = 0;
    const counted: ContentStore = { ...store, put: (content) => (puts++, store.put(content)) };
    const checkpointer = createCheckpointer(counted, { watch: true });
    const first = await checkpointer.checkpoint(workspace);
    const start = Date.now();
    try {
      // A whole read just before the hour is up finds everything trusted: nothing stored again.
      vi.useFakeTimers({ toFake: ['Date'], now: start + STORED_TRUST_MS - 60_000 });
      const before = puts;
      expect((await checkpointer.checkpoint(workspace)).directoriesRead).toBe(3);
      expect(puts).toBe(before);
      // Two minutes later nothing happened, but what the trees name is over an hour old: read and stored again.
      vi.setSystemTime(start + STORED_TRUST_MS + 60_000);
      const later = await checkpointer.checkpoint(workspace);
      expect(later).toMatchObject({ key: first.key, hashed: 20, directoriesRead: 3 });
      expect(puts).toBe(before + 20 + 3);
    } finally {
      vi.useRealTimers();
    }
  });
});
