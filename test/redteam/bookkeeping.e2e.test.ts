// Red team, the worker's own files and memory, through the real CLI with a root worker and with an unprivileged one:
// links a hostile model plants (or finds) where the worker keeps its journal, its spill files and the commands' HOME
// make it touch nothing outside the workspace; a huge sparse file or an endless model answer cannot grow the worker.
import { mkdir, mkdtemp, symlink, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workerIdentities } from '../support/operator.js';
import type { Operator } from '../support/operator.js';
import { readFile } from 'node:fs/promises';
import {
  bashTurn,
  call,
  hostileRun,
  REDTEAM_TEST_MS,
  sharedOperator,
  treeFingerprint,
} from '../support/redteam-runs.js';

const MiB = 1024 * 1024;
const MODEL_OUTPUT_CAP_VARIABLE = 'DURABLE_AGENT_MAX_MODEL_OUTPUT_BYTES';

/** A directory outside the workspace holding three files two days old (what a journal sweep would delete). */
async function outsideDirectory(operator: Operator, name: string): Promise<string> {
  const directory = await mkdtemp(path.join(path.dirname(operator.stateDir), `outside-${name}-`));
  const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
  for (const file of ['a.json', 'b.json', 'keep.txt']) {
    await writeFile(path.join(directory, file), `${name} ${file}\n`);
    await utimes(path.join(directory, file), old, old);
  }
  await operator.own(directory);
  return directory;
}

/** The peak resident memory (VmHWM) of process `pid`, in bytes. */
async function peakBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN) * 1024;
}

describe.each(workerIdentities())("the worker's own files and memory, $label worker", (identity) => {
  const operator = sharedOperator(identity, () => ({ [MODEL_OUTPUT_CAP_VARIABLE]: String(2 * MiB) }));

  it(
    'follows no link at the journal, the spill directory or HOME: nothing outside is created, changed or deleted',
    async () => {
      const planted = { journal: '', home: '', spill: '' };
      for (const name of Object.keys(planted) as (keyof typeof planted)[]) {
        planted[name] = await outsideDirectory(operator(), name);
      }
      const laterJournal = await outsideDirectory(operator(), 'later-journal');
      const laterHome = await outsideDirectory(operator(), 'later-home');
      const workspace = await operator().workspace({ 'a.txt': 'one\n' });
      await mkdir(path.join(workspace, '.agent'));
      await symlink(planted.journal, path.join(workspace, '.agent', 'journal'));
      await symlink(planted.home, path.join(workspace, '.agent', 'home'));
      await symlink(planted.spill, path.join(workspace, '.agent', 'tool-output'));
      await operator().own(workspace);
      const outside = { ...planted, laterJournal, laterHome };
      const fingerprints = async () =>
        Object.fromEntries(
          await Promise.all(
            Object.entries(outside).map(async ([name, directory]) => [name, await treeFingerprint(directory)]),
          ),
        ) as Record<string, string>;
      const before = await fingerprints();
      const run = await hostileRun(
        operator(),
        workspace,
        [
          { tool_calls: [call('r0', 'ReadFile', { path: 'a.txt' })] },
          { tool_calls: [call('w1', 'WriteFile', { path: 'a.txt', content: 'two\n' })] },
          bashTurn('home', 'mkdir -p ~/.cache && echo cached > ~/.cache/probe; echo $HOME', 'seq 1 400000'),
          { tool_calls: [call('r1', 'ReadFile', { path: 'a.txt' })] },
          { tool_calls: [call('e1', 'EditFile', { path: 'a.txt', old_string: 'two', new_string: 'three' })] },
          // A command re-plants the links the glob way (a pattern that hides the protected directory), then writes again.
          bashTurn(
            'relink',
            `rm -rf .ag?nt/journal .ag?nt/home; ln -s ${laterJournal} .ag*/journal; ln -s ${laterHome} .ag*/home`,
          ),
          { tool_calls: [call('w2', 'WriteFile', { path: 'b.txt', content: 'new\n' })] },
          bashTurn('home2', 'echo again > ~/probe2', 'seq 1 400000'),
        ],
        { ask: 'approve' },
      );
      expect(run.result?.status, run.cli.stderr).toBe('completed');
      const after = await fingerprints();
      expect(after).toEqual(before);
      expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('three\n');
    },
    REDTEAM_TEST_MS,
  );

  it(
    'four reads of one line of a 480 MiB sparse file grow the worker by less than 64 MiB',
    async () => {
      const workspace = await operator().workspace({});
      // A warm-up run, so the worker's own start-up is not counted.
      await hostileRun(operator(), workspace, [bashTurn('warm', 'true')]);
      const pid = await operator().workerPid();
      const peakBefore = await peakBytes(pid);
      const run = await hostileRun(
        operator(),
        workspace,
        [
          bashTurn('make', "yes 'first line' | head -c 16384 > big.txt && truncate -s 480M big.txt"),
          {
            tool_calls: [1, 2, 3, 4].map((index) => call(`read${index}`, 'ReadFile', { path: 'big.txt', limit: 1 })),
          },
        ],
        { ask: 'approve' },
      );
      expect(run.result?.status, run.cli.stderr).toBe('completed');
      expect(run.toolMessages.get('read1'), run.toolMessages.get('make1')).toContain('first line');
      const growth = (await peakBytes(pid)) - peakBefore;
      expect(growth / MiB).toBeLessThan(64);
    },
    REDTEAM_TEST_MS,
  );

  it(
    'fails a model answer that streams without end at the configured cap, with an error naming it',
    async () => {
      const endless = http.createServer((request, response) => {
        if (request.url?.endsWith('/models')) {
          response.setHeader('content-type', 'application/json');
          response.end(JSON.stringify({ object: 'list', data: [{ id: 'endless', object: 'model' }] }));
          return;
        }
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = `data: ${JSON.stringify({
          id: 'c',
          object: 'chat.completion.chunk',
          created: 0,
          model: 'endless',
          choices: [{ index: 0, delta: { content: 'x'.repeat(16_384) }, finish_reason: null }],
        })}\n\n`;
        const pump = (): void => {
          while (!response.destroyed && response.write(chunk));
          if (!response.destroyed) response.once('drain', pump);
        };
        request.socket.on('close', () => response.destroy());
        pump();
      });
      await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
      const address = endless.address() as { port: number };
      try {
        const workspace = await operator().workspace({});
        const pid = await operator().workerPid();
        const peakBefore = await peakBytes(pid);
        const run = await operator().cli(
          ['run', '--cwd', workspace, '--json', '--base-url', `http://127.0.0.1:${address.port}/v1`, 'talk forever'],
          { timeoutMs: 45_000 },
        );
        expect(run.exitCode, run.stderr).toBe(1);
        expect(`${run.stdout}\n${run.stderr}`).toContain(MODEL_OUTPUT_CAP_VARIABLE);
        expect(((await peakBytes(pid)) - peakBefore) / MiB).toBeLessThan(64);
      } finally {
        endless.closeAllConnections();
        endless.close();
      }
    },
    REDTEAM_TEST_MS,
  );
});
