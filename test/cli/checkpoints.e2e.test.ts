// Workspace checkpoints end to end: a run that changes files with EditFile and with Bash (`sed -i`, a build script that
// writes and deletes) on the shared test server, then `durable-agent diff` and `history` through the real CLI, reading
// the checkpoints in the run's history and the trees in the workers' store.
import { chmod, mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunHistory } from '../../src/history/history-reader.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { cliSuite } from '../support/cli.js';
import { startScriptedRun, workspaceFrom } from '../support/harness.js';

const suite = cliSuite();
const { cli } = suite;

const BUILD_SCRIPT = `#!/bin/sh
set -e
mkdir -p out
printf 'generated\\n' > out/gen.txt
rm tmp.txt
`;

/** Read, edit, `sed -i`, a build script, an answer: steps 2, 3 and 4 change files, step 1 only reads. */
const SCRIPT: ScriptTurn[] = [
  { tool_calls: [{ id: 'read', name: 'ReadFile', arguments: { path: 'notes.txt' } }] },
  {
    tool_calls: [
      { id: 'edit', name: 'EditFile', arguments: { path: 'notes.txt', old_string: 'two', new_string: 'TWO' } },
    ],
  },
  { tool_calls: [{ id: 'sed', name: 'Bash', arguments: { command: "sed -i 's/one/ONE/' notes.txt" } }] },
  { tool_calls: [{ id: 'build', name: 'Bash', arguments: { command: 'sh build.sh' } }] },
  { content: 'done' },
];

async function workspace(): Promise<string> {
  const root = await workspaceFrom();
  await writeFile(join(root, 'notes.txt'), 'one\ntwo\nthree\n');
  await writeFile(join(root, 'tmp.txt'), 'scratch\n');
  await writeFile(join(root, 'build.sh'), BUILD_SCRIPT);
  await chmod(join(root, 'build.sh'), 0o755);
  // Ignored by the defaults and by .gitignore: never recorded, never shown.
  await mkdir(join(root, 'node_modules'), { recursive: true });
  await writeFile(join(root, 'node_modules', 'dep.js'), 'module.exports = 1;\n');
  await writeFile(join(root, '.gitignore'), '*.log\n');
  return root;
}

/** A finished run of SCRIPT: its id and workspace. */
async function finishedRun(): Promise<{ id: string; root: string }> {
  const root = await workspace();
  const { handle, model } = await startScriptedRun(suite.harness, {
    workspace: root,
    script: SCRIPT,
    input: { askPolicy: 'approve' },
  });
  try {
    expect((await handle.result()).answer).toBe('done');
  } finally {
    await model.close();
  }
  return { id: handle.workflowId, root };
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

describe('workspace checkpoints', () => {
  it('diff shows what each step changed, Bash included, and history marks the steps that changed files', async () => {
    const { id } = await finishedRun();
    const env = suite.harness.storeEnv;

    const edit = await cli(['diff', id, '--step', '2'], env);
    expect(edit.exitCode, edit.stderr).toBe(0);
    expect(edit.stdout).toContain('diff --git a/notes.txt b/notes.txt');
    expect(edit.stdout).toMatch(/^-two$/m);
    expect(edit.stdout).toMatch(/^\+TWO$/m);
    expect(edit.stdout).not.toContain('ONE');

    const sed = await cli(['diff', id, '--step', '3'], env);
    expect(sed.exitCode, sed.stderr).toBe(0);
    expect(sed.stdout).toMatch(/^-one$/m);
    expect(sed.stdout).toMatch(/^\+ONE$/m);

    const build = await cli(['diff', id, '--step', '4', '--stat'], env);
    expect(build.exitCode, build.stderr).toBe(0);
    expect(build.stdout.trim().split('\n')).toEqual(['A out/gen.txt', 'D tmp.txt']);

    const read = await cli(['diff', id, '--step', '1'], env);
    expect(read.exitCode, read.stderr).toBe(0);
    expect(read.stderr).toContain('step 1 of');
    expect(read.stderr).toContain('made no call that could change files');

    const whole = await cli(['diff', id, '--json'], env);
    expect(whole.exitCode, whole.stderr).toBe(0);
    const files = (JSON.parse(whole.stdout) as { files: { path: string; change: string }[] }).files;
    expect(files).toEqual([
      { path: 'notes.txt', change: 'modified' },
      { path: 'out/gen.txt', change: 'added' },
      { path: 'tmp.txt', change: 'deleted' },
    ]);
    // From after step 2 to after step 3: the sed alone, the edit before it already in both.
    const range = await cli(['diff', id, '--from', '2', '--to', '3'], env);
    expect(range.stdout).toMatch(/^\+ONE$/m);
    expect(range.stdout).not.toMatch(/^\+TWO$/m);

    const history = await cli(['history', id], env);
    expect(history.exitCode, history.stderr).toBe(0);
    const stepLine = (step: number) => history.stdout.split('\n').find((line) => line.startsWith(`step ${step} `))!;
    expect(stepLine(1)).not.toContain('changed');
    expect(stepLine(2)).toContain('1 file changed (+0 ~1 -0)');
    expect(stepLine(3)).toContain('1 file changed (+0 ~1 -0)');
    expect(stepLine(4)).toContain('2 files changed (+1 ~0 -1)');
    const json = JSON.parse((await cli(['history', id, '--json'], env)).stdout) as RunHistory;
    const build4 = json.steps.find((step) => step.step === 4)!.tools[0]!;
    expect(build4.checkpoint?.changes).toEqual({ added: 1, modified: 0, deleted: 1 });
  }, 120_000);

  it('rewind sets the files back to any step, refuses an outside edit unless --force, and is undone by its own key', async () => {
    const { id, root } = await finishedRun();
    const env = suite.harness.storeEnv;
    const notes = () => readFile(join(root, 'notes.txt'), 'utf8');

    // An edit made outside the run since its last checkpoint: refused, nothing written.
    await writeFile(join(root, 'notes.txt'), 'ONE\nTWO\nthree\nmine\n');
    const refused = await cli(['rewind', id, '--to-step', '2'], env);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("changed since the run's last checkpoint");
    expect(refused.stderr).toMatch(/^ {2}M notes\.txt$/m);
    expect(await notes()).toBe('ONE\nTWO\nthree\nmine\n');

    const rewound = await cli(['rewind', id, '--to-step', '2', '--force'], env);
    expect(rewound.exitCode, rewound.stderr).toBe(0);
    expect(await notes()).toBe('one\nTWO\nthree\n');
    expect(await readFile(join(root, 'tmp.txt'), 'utf8')).toBe('scratch\n');
    expect(await exists(join(root, 'out', 'gen.txt'))).toBe(false);
    expect((await stat(join(root, 'build.sh'))).mode & 0o777).toBe(0o755);
    // Ignored paths are neither recorded nor touched.
    expect(await readFile(join(root, 'node_modules', 'dep.js'), 'utf8')).toBe('module.exports = 1;\n');

    const undo = /undo: durable-agent (rewind .+)$/m.exec(rewound.stderr)?.[1];
    expect(undo).toMatch(/--to-checkpoint sha256:[0-9a-f]{64} --force$/);
    const undone = await cli(undo!.split(' '), env);
    expect(undone.exitCode, undone.stderr).toBe(0);
    expect(await notes()).toBe('ONE\nTWO\nthree\nmine\n');
    expect(await readFile(join(root, 'out', 'gen.txt'), 'utf8')).toBe('generated\n');
    expect(await exists(join(root, 'tmp.txt'))).toBe(false);

    const start = await cli(['rewind', id, '--to-step', '0', '--force', '--json'], env);
    expect(start.exitCode, start.stderr).toBe(0);
    expect(await notes()).toBe('one\ntwo\nthree\n');
    expect(JSON.parse(start.stdout)).toMatchObject({ workflowId: id, rewound: true, removed: expect.any(Number) });
  }, 120_000);

  it("fork --workspace starts a new directory from a step's files, and the fork edits them without a fresh read", async () => {
    const { id } = await finishedRun();
    const env = suite.harness.storeEnv;
    const directory = join(await mkdtemp(join(tmpdir(), 'durable-agent-fork-')), 'files');
    const model = await startScriptedModelServer({
      script: [
        {
          tool_calls: [
            {
              id: 'more',
              name: 'EditFile',
              arguments: { path: 'notes.txt', old_string: 'three', new_string: 'THREE' },
            },
          ],
        },
        { content: 'forked' },
      ],
    });
    try {
      const fork = await cli(
        ['fork', id, '--from-step', '2', '--workspace', directory, '--base-url', model.url, '--json'],
        env,
      );
      expect(fork.exitCode, fork.stderr).toBe(0);
      expect(JSON.parse(fork.stdout)).toMatchObject({ status: 'completed', answer: 'forked' });
      expect(fork.stderr).toContain('with the files it had then');
    } finally {
      await model.close();
    }
    // The files after step 2 (the edit, not yet the sed or the build), then the fork's own edit.
    expect(await readFile(join(directory, 'notes.txt'), 'utf8')).toBe('one\nTWO\nTHREE\n');
    expect(await readFile(join(directory, 'tmp.txt'), 'utf8')).toBe('scratch\n');
    expect(await exists(join(directory, 'out'))).toBe(false);
    expect(await exists(join(directory, 'node_modules'))).toBe(false);
    expect((await stat(join(directory, 'build.sh'))).mode & 0o777).toBe(0o755);
  }, 120_000);
});
