import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalPath, readJournal, removeJournal, writeJournal } from '../../../src/activities/files/journal.js';
import type { WriteJournalRecord } from '../../../src/activities/files/journal.js';
import { makeWorkspace, removeWorkspace } from './session.js';

let root: string;

beforeEach(async () => {
  root = await makeWorkspace('journal-');
});

afterEach(async () => {
  await removeWorkspace(root);
});

const record: WriteJournalRecord = {
  version: 1,
  tool: 'EditFile',
  rel: 'src/a.ts',
  intended_sha256: 'b'.repeat(64),
  expected_sha256: 'a'.repeat(64),
  result: { text: 'Edited', data: { applied: true }, stats: { new_size: 3 } },
};

describe('write journal', () => {
  it('lives in the directory it is given, with a sanitised, bounded name', () => {
    expect(journalPath(root, 'wf-1/run:2/activity 3')).toBe(path.join(root, 'wf-1_run_2_activity_3.json'));
    const long = journalPath(root, 'k'.repeat(500));
    expect(path.basename(long).length).toBeLessThanOrEqual(130);
    expect(journalPath(root, 'k'.repeat(500))).toBe(long);
    expect(journalPath(root, `${'k'.repeat(499)}j`)).not.toBe(long);
  });

  it('round-trips a record and removes it', async () => {
    await writeJournal(root, 'key', record);
    expect(await readJournal(root, 'key')).toEqual(record);
    await removeJournal(root, 'key');
    expect(await readJournal(root, 'key')).toBeUndefined();
  });

  it('treats a torn or foreign record as absent', async () => {
    await mkdir(path.dirname(journalPath(root, 'torn')), { recursive: true });
    await writeFile(journalPath(root, 'torn'), '{"version":1,"tool":"Edit');
    expect(await readJournal(root, 'torn')).toBeUndefined();
    await writeFile(journalPath(root, 'foreign'), JSON.stringify({ ...record, tool: 'Bash' }));
    expect(await readJournal(root, 'foreign')).toBeUndefined();
  });
});
