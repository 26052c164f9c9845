// ReadFile's memory is bounded by what it returns: one line of a huge sparse file (a few KiB on disk, made with a
// plain truncate as any command could) must not bring the file into the worker's memory.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeReadFile } from '../../src/activities/executors/read-file.js';
import { ToolSession, makeWorkspace, removeWorkspace } from './files/session.js';

const MIB = 1024 * 1024;
const SPARSE_SIZE = 480 * MIB;

let root: string;
let session: ToolSession;

beforeEach(async () => {
  root = await makeWorkspace('read-file-memory-');
  session = new ToolSession(root);
});

afterEach(async () => {
  await removeWorkspace(root);
});

describe('ReadFile memory', () => {
  it('four reads of one line of a 480 MiB sparse file grow the process by less than 64 MiB', async () => {
    const file = path.join(root, 'huge.log');
    // Text past the binary check's 8 KiB window, then a hole of zeros to 480 MiB.
    await writeFile(file, `first line\n${'text '.repeat(2000)}\n`);
    execFileSync('truncate', ['-s', String(SPARSE_SIZE), file]);

    const before = process.memoryUsage();
    let peak = { rss: before.rss, outside: before.external + before.arrayBuffers };
    for (let call = 0; call < 4; call++) {
      const { envelope } = await session.run(executeReadFile, { path: 'huge.log', limit: 1 });
      expect(envelope.data).toMatchObject({ content: '   1 | first line\n', end_line: 1, total_lines: 3 });
      // The whole file is hashed (the read-before-write lock covers all of it), streamed.
      expect(envelope.stats).toMatchObject({ file_size_bytes: SPARSE_SIZE });
      const now = process.memoryUsage();
      peak = {
        rss: Math.max(peak.rss, now.rss),
        outside: Math.max(peak.outside, now.external + now.arrayBuffers),
      };
    }
    expect((peak.rss - before.rss) / MIB).toBeLessThan(64);
    expect((peak.outside - (before.external + before.arrayBuffers)) / MIB).toBeLessThan(64);
  });
});
