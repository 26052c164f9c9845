// The worker's own files under the workspace against links the model planted: at every path the worker creates,
// writes, renames or deletes there (the spill folders and files, atomic-write temp files, the old in-workspace journal),
// a link pointing outside must leave everything outside exactly as it was, and the tool must answer clearly or carry on.
import { createHash } from 'node:crypto';
import { link, lstat, mkdir, readFile, readdir, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spillFileName, spillDirectory } from '../../../src/core/output-budget.js';
import { okEnvelope } from '../../../src/protocol/envelope.js';
import { createBashExecutor } from '../../../src/activities/executors/bash.js';
import { executeEditFile } from '../../../src/activities/executors/edit-file.js';
import { executeReadFile } from '../../../src/activities/executors/read-file.js';
import type { ToolExecutor } from '../../../src/activities/executors/types.js';
import { executeWriteFile } from '../../../src/activities/executors/write-file.js';
import { tempNameFor } from '../../../src/activities/files/atomic-write.js';
import { runTool } from '../../../src/activities/run-tool.js';
import { pruneSpillDirectories, spillEverywhere, writeSpillFile } from '../../../src/activities/spill.js';
import { makeExecutorContext } from '../executor-context.js';
import { ToolSession, makeWorkspace, removeWorkspace } from './session.js';

let root: string;
let outside: string;
let session: ToolSession;

beforeEach(async () => {
  root = await makeWorkspace('worker-links-');
  outside = await makeWorkspace('worker-links-outside-');
  session = new ToolSession(root);
  // What an attacker would like the worker to change: old files a sweep would delete, a file a write would replace.
  await writeFile(path.join(outside, 'victim.txt'), 'precious\n');
  const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
  for (const name of ['old-1.json', 'old-2.json', 'old-3.json']) {
    await writeFile(path.join(outside, name), '{}');
    await utimes(path.join(outside, name), twoDaysAgo, twoDaysAgo);
  }
  await mkdir(path.join(outside, 'old-dir'));
  await writeFile(path.join(outside, 'old-dir', 'keep.txt'), 'keep');
  const tenDaysAgo = new Date(Date.now() - 10 * 24 * 60 * 60 * 1000);
  await utimes(path.join(outside, 'old-dir'), tenDaysAgo, tenDaysAgo);
});

afterEach(async () => {
  await removeWorkspace(root);
  await removeWorkspace(outside);
});

/** Every entry below `directory` with its type, size, mtime and content hash: what "unchanged" compares. */
async function fingerprint(directory: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const walk = async (current: string): Promise<void> => {
    for (const name of (await readdir(current)).sort()) {
      const full = path.join(current, name);
      const info = await lstat(full);
      const rel = path.relative(directory, full);
      if (info.isDirectory()) {
        result[rel] = `dir ${info.mtimeMs}`;
        await walk(full);
      } else {
        const hash = createHash('sha256')
          .update(await readFile(full))
          .digest('hex');
        result[rel] = `file ${info.size} ${info.mtimeMs} ${info.mode} ${hash}`;
      }
    }
  };
  await walk(directory);
  return result;
}

async function expectOutsideUnchanged(run: () => Promise<void>): Promise<void> {
  const before = await fingerprint(outside);
  await run();
  expect(await fingerprint(outside)).toEqual(before);
}

const write = (input: Record<string, unknown>, options?: { attempt?: number; activityKey?: string }) =>
  session.run(executeWriteFile, input, options);

describe("the worker's bookkeeping under planted links", () => {
  it('a link at the old .agent/journal is neither swept nor written: the journal lives outside the workspace', async () => {
    await mkdir(path.join(root, '.agent'));
    await symlink(outside, path.join(root, '.agent', 'journal'));
    await expectOutsideUnchanged(async () => {
      const created = await write({ path: 'a.txt', content: 'one\n' }, { activityKey: 'journal-probe' });
      expect(created.envelope.status).toBe('success');
      await session.run(executeReadFile, { path: 'a.txt' });
      const edited = await session.run(executeEditFile, { path: 'a.txt', old_string: 'one', new_string: 'two' });
      expect(edited.envelope.status).toBe('success');
    });
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('two\n');
  });

  it('a link at .agent, .agent/tool-output or the task folder: the spill is refused, nothing is made outside', async () => {
    const target = {
      root,
      taskId: 'task-l',
      turn: 1,
      index: 0,
      toolName: 'Bash',
      callId: 'c1',
      suffix: 'output',
    } as const;
    const links = ['.agent', '.agent/tool-output', spillDirectory('task-l')];
    for (const linkPath of links) {
      await rm(path.join(root, '.agent'), { recursive: true, force: true });
      await mkdir(path.dirname(path.join(root, linkPath)), { recursive: true });
      await symlink(outside, path.join(root, linkPath));
      await expectOutsideUnchanged(async () => {
        await expect(writeSpillFile(target, 'x'.repeat(100_000))).rejects.toThrow(`'${linkPath}' is a symbolic link`);
        // Pruning through the link would delete the outside folder older than the retention period.
        expect(await pruneSpillDirectories(root, 0)).toEqual([]);
      });
    }
  });

  it('a symlink or a hard link at the spill file name is replaced, not written through', async () => {
    const target = {
      root,
      taskId: 'task-f',
      turn: 2,
      index: 1,
      toolName: 'Bash',
      callId: 'c2',
      suffix: 'output',
    } as const;
    const folder = path.join(root, spillDirectory('task-f'));
    await mkdir(folder, { recursive: true });
    await symlink(path.join(outside, 'victim.txt'), path.join(folder, spillFileName(target)));
    const hardTarget = { ...target, callId: 'c3' };
    await link(path.join(outside, 'victim.txt'), path.join(folder, spillFileName(hardTarget)));
    await expectOutsideUnchanged(async () => {
      const first = await spillEverywhere(target, 'spilled one\n', undefined);
      const second = await spillEverywhere(hardTarget, 'spilled two\n', undefined);
      expect(await readFile(path.join(root, first.path), 'utf8')).toBe('spilled one\n');
      expect(await readFile(path.join(root, second.path), 'utf8')).toBe('spilled two\n');
      expect((await lstat(path.join(root, first.path))).isSymbolicLink()).toBe(false);
    });
  });

  it('an oversized result with .agent linked outside carries on with a note instead of a spill file', async () => {
    await symlink(outside, path.join(root, '.agent'));
    const executor: ToolExecutor = async (context) => ({
      envelope: okEnvelope({ text: 'big', data: { content: 'b'.repeat(200_000) }, context: context.context }),
    });
    await expectOutsideUnchanged(async () => {
      const request = makeExecutorContext({ root, input: {} }).request;
      const result = await runTool('ReadFile', executor, request, { maximumAttempts: 1 });
      expect(result.envelope.data.truncated).toBe(true);
      expect(result.envelope.text).toContain("'.agent' is a symbolic link");
      expect(result.envelope.data.truncation).toMatchObject({ full_output_unsaved: expect.stringContaining('.agent') });
    });
  });

  it('a Bash command that links its own spill folder outside and prints a lot: the output is kept, nothing is written out', async () => {
    const executeBash = createBashExecutor({ kind: 'off' });
    const command = `mkdir -p .agent/tool-output && ln -s '${outside}' .agent/tool-output/task-b && seq 1 60000`;
    const context = makeExecutorContext({ root, input: { command, cwd: '.', timeout_ms: 20_000 }, taskId: 'task-b' });
    await expectOutsideUnchanged(async () => {
      const { envelope } = await executeBash(context);
      expect(envelope.data).toMatchObject({ exit_code: 0, stdout_truncated: true });
      expect(envelope.data.stdout).toContain("'.agent/tool-output/task-b' is a symbolic link");
      expect((envelope.data.stdout as string).endsWith('59999\n60000\n')).toBe(true);
    });
  });

  it("a retry's leftover-temp cleanup removes a link planted under a temp name, never its target", async () => {
    await writeFile(path.join(root, 'a.txt'), 'v1\n');
    await session.run(executeReadFile, { path: 'a.txt' });
    const key = 'retry/key';
    const planted = tempNameFor('a.txt', key);
    await symlink(path.join(outside, 'victim.txt'), path.join(root, planted));
    await expectOutsideUnchanged(async () => {
      const retried = await write({ path: 'a.txt', content: 'v2\n' }, { attempt: 2, activityKey: key });
      expect(retried.envelope.status).toBe('success');
    });
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('v2\n');
    await expect(lstat(path.join(root, planted))).rejects.toThrow();
  });

  it('a directory swapped for an outside link just before the commit: the write stays where it was resolved', async () => {
    await mkdir(path.join(root, 'sub'));
    await writeFile(path.join(root, 'sub', 'a.txt'), 'v1\n');
    await session.run(executeReadFile, { path: 'sub/a.txt' });
    const context = makeExecutorContext({
      root,
      input: { path: 'sub/a.txt', content: 'v2\n' },
      readState: session.readState,
    });
    // The one moment both the old file and the new bytes are on disk: a racing command moves the folder away and
    // leaves a link to the outside in its place.
    context.beforeCommit = async () => {
      await rename(path.join(root, 'sub'), path.join(root, 'sub-moved'));
      await symlink(outside, path.join(root, 'sub'));
    };
    await expectOutsideUnchanged(async () => {
      const result = await executeWriteFile(context);
      expect(result.envelope.status).toBe('success');
    });
    expect(await readFile(path.join(root, 'sub-moved', 'a.txt'), 'utf8')).toBe('v2\n');
    await expect(stat(path.join(outside, 'a.txt'))).rejects.toThrow();
  });
});

describe('protected paths judged on the real path', () => {
  beforeEach(async () => {
    await mkdir(path.join(root, '.git', 'hooks'), { recursive: true });
    await writeFile(path.join(root, '.git', 'config'), '[core]\n');
  });

  it('WriteFile through a link to .git is refused, naming the real path; .git/config is unchanged', async () => {
    await symlink('.git', path.join(root, 'g'));
    await session.run(executeReadFile, { path: 'g/config' });
    const { envelope } = await write({ path: 'g/config', content: '[core]\n\tfsmonitor = touch pwned\n' });
    expect(envelope.error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { reason: 'protected_real_path', path: 'g/config', real_path: '.git/config' },
    });
    expect(envelope.error?.message).toContain("'.git/config'");
    expect(await readFile(path.join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it('EditFile through a link to .git/config and WriteFile through a dangling link into .git/hooks are refused', async () => {
    await symlink('.git/config', path.join(root, 'settings.ini'));
    await symlink('.git/hooks/pre-commit', path.join(root, 'hook.sh'));
    await session.run(executeReadFile, { path: 'settings.ini' });
    const edit = await session.run(executeEditFile, {
      path: 'settings.ini',
      old_string: '[core]',
      new_string: '[core]\n\tfsmonitor = touch pwned',
    });
    expect(edit.envelope.error?.details).toMatchObject({ reason: 'protected_real_path', real_path: '.git/config' });
    const hook = await write({ path: 'hook.sh', content: '#!/bin/sh\ntouch pwned\n' });
    expect(hook.envelope.error?.details).toMatchObject({
      reason: 'protected_real_path',
      real_path: '.git/hooks/pre-commit',
    });
    expect(await readFile(path.join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
    await expect(stat(path.join(root, '.git', 'hooks', 'pre-commit'))).rejects.toThrow();
  });

  it("the run's own protected list applies, and a typed protected path (already decided on) is written", async () => {
    await mkdir(path.join(root, 'deploy'));
    await symlink('deploy', path.join(root, 'd'));
    const context = makeExecutorContext({ root, input: { path: 'd/prod.yaml', content: 'x' } });
    context.request.writeProtected = ['deploy/**'];
    expect((await executeWriteFile(context)).envelope.error?.details).toMatchObject({
      reason: 'protected_real_path',
      real_path: 'deploy/prod.yaml',
    });
    // The permission decision judged `.git/config` itself, so the executor does not ask again.
    await session.run(executeReadFile, { path: '.git/config' });
    const direct = await write({ path: '.git/config', content: '[core]\n\tbare = false\n' });
    expect(direct.envelope.status).toBe('success');
  });

  it('reads through the same link are unaffected', async () => {
    await symlink('.git', path.join(root, 'g'));
    const { envelope } = await session.run(executeReadFile, { path: 'g/config' });
    expect(envelope.data).toMatchObject({ path: '.git/config', content: '   1 | [core]\n' });
  });
});
