// The proof bindings every worker process of the embedded server shares: a proof belongs to the first run it was
// honoured for, and activities that ask at the same moment — a run's first activities, scheduled together, on one
// worker or several — all get that one answer, never a binding still being written.
import { once } from 'node:events';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunBindings } from '../../../src/activities/authorization/run-bindings.js';
import { compiledEntry } from '../../support/compiled-entry.js';

let directory: string;
beforeEach(async () => {
  directory = path.join(await mkdtemp(path.join(os.tmpdir(), 'run-bindings-')), 'bindings');
});
afterEach(async () => {
  await rm(path.dirname(directory), { recursive: true, force: true });
});

describe('createRunBindings', () => {
  it('binds a proof to its first run and refuses it to another, privately', async () => {
    const bindings = createRunBindings(directory);
    expect(await bindings.bind('mac-1', 'run-a')).toBe('run-a');
    expect(await bindings.bind('mac-1', 'run-b')).toBe('run-a');
    expect(await createRunBindings(directory).bind('mac-1', 'run-b')).toBe('run-a');
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
    const [file] = await readdir(directory);
    expect((await stat(path.join(directory, file!))).mode & 0o777).toBe(0o600);
  });

  it('gives one run’s activities asking at once, through several bindings of one process, its own id — never an empty one', async () => {
    for (let round = 0; round < 20; round += 1) {
      const workers = Array.from({ length: 16 }, () => createRunBindings(directory));
      const mac = `mac-${round}`;
      const answers = await Promise.all(
        workers.flatMap((worker) => [1, 2].map(() => worker.bind(mac, `run-${round}`))),
      );
      expect(new Set(answers)).toEqual(new Set([`run-${round}`]));
    }
    expect((await readdir(directory)).filter((name) => name.endsWith('.draft'))).toEqual([]);
  });

  it('gives worker processes racing for the same proofs one complete answer each, never an empty one', async () => {
    for (const answers of await raceProcesses(['run-a', 'run-a', 'run-a', 'run-a'])) {
      expect(new Set(answers)).toEqual(new Set(['run-a']));
    }
    expect((await readdir(directory)).filter((name) => name.endsWith('.draft'))).toEqual([]);
  });

  it('gives a proof replayed by another chain, racing its own run from other worker processes, to one chain only', async () => {
    const byProcess = await raceProcesses(['run-a', 'run-replayed', 'run-a', 'run-replayed']);
    for (let proof = 0; proof < PROOFS; proof += 1) {
      const owners = new Set(byProcess.map((answers) => answers[proof]));
      expect(owners.size).toBe(1);
      expect(['run-a', 'run-replayed']).toContain([...owners][0]);
    }
  });

  it('lets exactly one of two chains racing for a proof have it, and tells the other whose it is', async () => {
    for (let round = 0; round < 20; round += 1) {
      const mac = `mac-${round}`;
      const answers = await Promise.all(
        ['run-a', 'run-b', 'run-a', 'run-b'].map((run) => createRunBindings(directory).bind(mac, run)),
      );
      expect(new Set(answers).size).toBe(1);
      expect(['run-a', 'run-b']).toContain(answers[0]);
    }
  });
});

const PROOFS = 40;

/** One process per run id, released together, each binding the same PROOFS proofs; their answers, by process. */
async function raceProcesses(runIds: string[]): Promise<string[][]> {
  const entry = await compiledEntry(path.join(import.meta.dirname, 'bind-race.ts'));
  const racers = runIds.map((run) => execa(process.execPath, [entry, directory, run, String(PROOFS)]));
  await Promise.all(racers.map((racer) => once(racer.stdout, 'data')));
  for (const racer of racers) racer.stdin.write('go\n');
  return (await Promise.all(racers)).map(({ stdout }) => JSON.parse(stdout.replace('ready\n', '')) as string[]);
}
