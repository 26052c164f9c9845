// A comparison as git's unified diff: text hunks, modes, links, binary and skipped files.
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Checkpointer } from '../../../src/activities/checkpoint/checkpointer.js';
import { createCheckpointer } from '../../../src/activities/checkpoint/checkpointer.js';
import { compareCheckpoints } from '../../../src/activities/checkpoint/compare.js';
import { renderUnifiedDiff } from '../../../src/activities/checkpoint/unified-diff.js';
import type { ContentKey } from '../../../src/protocol/content-key.js';
import type { ContentStore } from '../../../src/store/content-store.js';
import { useScratchWorkspace } from './scratch-workspace.js';

const scratch = useScratchWorkspace('unified-diff');
let workspace: string;
let store: ContentStore;
let checkpointer: Checkpointer;

beforeEach(() => {
  ({ workspace, store } = scratch);
  checkpointer = createCheckpointer(store);
});

async function write(rel: string, content: string | Uint8Array, mode = 0o644): Promise<void> {
  const file = path.join(workspace, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  await fs.chmod(file, mode);
}

async function checkpoint(options: { maxFileBytes?: number } = {}): Promise<ContentKey> {
  return (await checkpointer.checkpoint(workspace, options)).key;
}

/** The diff of what `change` does to the workspace. */
async function diffOf(change: () => Promise<void>, options: { maxFileBytes?: number } = {}): Promise<string> {
  const before = await checkpoint(options);
  await change();
  return renderUnifiedDiff(store, await compareCheckpoints(store, before, await checkpoint(options)));
}

const lines = (count: number, edit: (line: number) => string = (line) => `line ${line}`) =>
  Array.from({ length: count }, (_, index) => `${edit(index + 1)}\n`).join('');

describe('renderUnifiedDiff', () => {
  it('shows an in-place substitution as one removed and one added line with context', async () => {
    await write('config.ini', lines(20));
    const diff = await diffOf(() =>
      write(
        'config.ini',
        lines(20, (line) => (line === 10 ? 'LINE 10' : `line ${line}`)),
      ),
    );
    expect(diff).toBe(
      [
        'diff --git a/config.ini b/config.ini',
        '--- a/config.ini',
        '+++ b/config.ini',
        '@@ -7,7 +7,7 @@',
        ' line 7',
        ' line 8',
        ' line 9',
        '-line 10',
        '+LINE 10',
        ' line 11',
        ' line 12',
        ' line 13',
        '',
      ].join('\n'),
    );
  });

  it('shows an added and a deleted file against /dev/null with their modes', async () => {
    await write('old.txt', 'going\n');
    const diff = await diffOf(async () => {
      await fs.rm(path.join(workspace, 'old.txt'));
      await write('new.txt', 'hello\nworld\n');
    });
    expect(diff).toBe(
      [
        'diff --git a/new.txt b/new.txt',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/new.txt',
        '@@ -0,0 +1,2 @@',
        '+hello',
        '+world',
        'diff --git a/old.txt b/old.txt',
        'deleted file mode 100644',
        '--- a/old.txt',
        '+++ /dev/null',
        '@@ -1,1 +0,0 @@',
        '-going',
        '',
      ].join('\n'),
    );
  });

  it('shows an executable bit change as old and new mode, without hunks', async () => {
    await write('run.sh', '#!/bin/sh\n');
    const diff = await diffOf(() => fs.chmod(path.join(workspace, 'run.sh'), 0o755));
    expect(diff).toBe(['diff --git a/run.sh b/run.sh', 'old mode 100644', 'new mode 100755', ''].join('\n'));
  });

  it('says binary files differ when either side has a NUL in its first 8000 bytes', async () => {
    await write('image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    await write('late-nul.txt', `${'a'.repeat(8000)}\u0000\n`);
    const diff = await diffOf(async () => {
      await write('image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x02]));
      await write('late-nul.txt', `${'b'.repeat(8000)}\u0000\n`);
    });
    expect(diff).toContain('diff --git a/image.png b/image.png\nBinary files a/image.png and b/image.png differ\n');
    // A NUL past git's window: diffed as text.
    expect(diff).toContain('--- a/late-nul.txt\n+++ b/late-nul.txt\n');
  });

  it('shows a link target as the file text, a new link with mode 120000', async () => {
    await fs.symlink('v1/lib.so', path.join(workspace, 'current'));
    const diff = await diffOf(async () => {
      await fs.rm(path.join(workspace, 'current'));
      await fs.symlink('v2/lib.so', path.join(workspace, 'current'));
      await fs.symlink('/etc/hosts', path.join(workspace, 'hosts'));
    });
    expect(diff).toContain(
      [
        'diff --git a/current b/current',
        '--- a/current',
        '+++ b/current',
        '@@ -1,1 +1,1 @@',
        '-v1/lib.so',
        '\\ No newline at end of file',
        '+v2/lib.so',
        '\\ No newline at end of file',
      ].join('\n'),
    );
    expect(diff).toContain('diff --git a/hosts b/hosts\nnew file mode 120000\n--- /dev/null\n+++ b/hosts\n');
  });

  it('says why a file was not checkpointed instead of diffing it', async () => {
    await write('data.bin', 'small at first\n');
    const diff = await diffOf(() => write('data.bin', 'x'.repeat(5000)), { maxFileBytes: 1024 });
    expect(diff).toBe(
      [
        'diff --git a/data.bin b/data.bin',
        'b/data.bin was not checkpointed: larger than 1024 bytes (5000 bytes)',
        '',
      ].join('\n'),
    );
  });

  it('does not diff text over 1 MiB', async () => {
    await write('huge.log', lines(100_000)); // about 1.1 MiB
    const diff = await diffOf(() => write('huge.log', lines(100_001)));
    expect(diff).toBe(['diff --git a/huge.log b/huge.log', '(diff of a file over 1 MiB not shown)', ''].join('\n'));
  });

  it('adds nothing for a directory of its own, only for the files in it', async () => {
    const diff = await diffOf(async () => {
      await fs.mkdir(path.join(workspace, 'empty'));
      await write('src/a.txt', 'a\n');
    });
    expect(diff).toBe(
      [
        'diff --git a/src/a.txt b/src/a.txt',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/src/a.txt',
        '@@ -0,0 +1,1 @@',
        '+a',
        '',
      ].join('\n'),
    );
    expect(await renderUnifiedDiff(store, [])).toBe('');
  });
});
