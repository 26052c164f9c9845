import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWithin, realWorkspaceRoot, resolveInWorkspace } from '../../src/activities/workspace.js';
import { makeWorkspace, removeWorkspace } from './files/session.js';

let root: string;
let outside: string;

beforeEach(async () => {
  root = await makeWorkspace('workspace-');
  outside = await makeWorkspace('outside-');
  await mkdir(path.join(root, 'src'));
  await writeFile(path.join(root, 'src', 'a.ts'), 'export {};\n');
  await writeFile(path.join(outside, 'secret.txt'), 'secret\n');
});

afterEach(async () => {
  await removeWorkspace(root);
  await removeWorkspace(outside);
});

async function resolveOk(input: string) {
  const resolved = await resolveInWorkspace(root, input);
  if (!resolved.ok) throw new Error(`expected '${input}' to resolve: ${resolved.message}`);
  return resolved;
}

describe('resolveInWorkspace: inside the workspace', () => {
  it('resolves a relative path to its real path and a POSIX rel', async () => {
    const resolved = await resolveOk('src/a.ts');
    expect(resolved).toEqual({
      ok: true,
      absolute: path.join(root, 'src', 'a.ts'),
      real: path.join(root, 'src', 'a.ts'),
      rel: 'src/a.ts',
      exists: true,
    });
  });

  it('gives every spelling of one file the same rel', async () => {
    for (const spelling of ['src/a.ts', './src/a.ts', 'src/../src/a.ts', 'src//a.ts', path.join(root, 'src/a.ts')]) {
      expect((await resolveOk(spelling)).rel).toBe('src/a.ts');
    }
  });

  it('names the root "."', async () => {
    expect((await resolveOk('.')).rel).toBe('.');
    expect((await resolveOk(root)).rel).toBe('.');
  });

  it('resolves a missing path, reporting exists=false', async () => {
    const resolved = await resolveOk('new/dir/file.txt');
    expect(resolved.exists).toBe(false);
    expect(resolved.rel).toBe('new/dir/file.txt');
    expect(resolved.real).toBe(path.join(root, 'new', 'dir', 'file.txt'));
  });

  it('keys a file reached through an inside symlink by its target', async () => {
    await symlink(path.join(root, 'src'), path.join(root, 'alias'));
    await symlink('a.ts', path.join(root, 'src', 'link.ts'));
    expect((await resolveOk('alias/a.ts')).rel).toBe('src/a.ts');
    expect((await resolveOk('src/link.ts')).rel).toBe('src/a.ts');
  });

  it('follows a dangling symlink that stays inside to its intended target', async () => {
    await symlink('later.txt', path.join(root, 'pending'));
    const resolved = await resolveOk('pending');
    expect(resolved.rel).toBe('later.txt');
    expect(resolved.exists).toBe(false);
  });

  it('accepts a workspace root given through a symlink, and absolute paths in either spelling', async () => {
    const link = `${root}-link`;
    await symlink(root, link);
    try {
      const viaLink = await resolveInWorkspace(link, path.join(link, 'src', 'a.ts'));
      expect(viaLink.ok && viaLink.rel).toBe('src/a.ts');
      const viaReal = await resolveInWorkspace(link, path.join(root, 'src', 'a.ts'));
      expect(viaReal.ok && viaReal.rel).toBe('src/a.ts');
    } finally {
      await rm(link);
    }
  });
});

describe('resolveInWorkspace: outside the workspace', () => {
  const denied = (input: string) => ({
    ok: false,
    code: 'ACCESS_DENIED',
    message: `Path '${input}' is outside the workspace.`,
  });

  it('denies ../../etc/passwd', async () => {
    expect(await resolveInWorkspace(root, '../../etc/passwd')).toEqual(denied('../../etc/passwd'));
  });

  it('denies a relative path that climbs out and back into a sibling', async () => {
    const sibling = `../${path.basename(outside)}/secret.txt`;
    expect(await resolveInWorkspace(root, sibling)).toEqual(denied(sibling));
  });

  it('denies absolute paths outside', async () => {
    expect(await resolveInWorkspace(root, '/etc/passwd')).toEqual(denied('/etc/passwd'));
    const secret = path.join(outside, 'secret.txt');
    expect(await resolveInWorkspace(root, secret)).toEqual(denied(secret));
  });

  it('denies ~ paths without expanding them', async () => {
    expect(await resolveInWorkspace(root, '~/x')).toEqual(denied('~/x'));
    expect(await resolveInWorkspace(root, '~')).toEqual(denied('~'));
  });

  it('denies a path through a directory symlink that escapes', async () => {
    await symlink(outside, path.join(root, 'escape'));
    expect(await resolveInWorkspace(root, 'escape/secret.txt')).toEqual(denied('escape/secret.txt'));
    expect(await resolveInWorkspace(root, 'escape/new.txt')).toEqual(denied('escape/new.txt'));
  });

  it('denies a file symlink that escapes', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'));
    expect(await resolveInWorkspace(root, 'secret-link')).toEqual(denied('secret-link'));
  });

  it('denies a dangling symlink whose target would be created outside', async () => {
    await symlink(path.join(outside, 'not-yet.txt'), path.join(root, 'trap'));
    expect(await resolveInWorkspace(root, 'trap')).toEqual(denied('trap'));
  });

  it('denies an absolute path that enters W only through an outside symlink', async () => {
    const link = path.join(outside, 'to-root');
    await symlink(root, link);
    const viaOutside = path.join(link, 'src', 'a.ts');
    expect(await resolveInWorkspace(root, viaOutside)).toEqual(denied(viaOutside));
  });
});

describe('resolveInWorkspace: invalid paths', () => {
  it('rejects a NUL byte and the empty string as INVALID_PARAM', async () => {
    expect(await resolveInWorkspace(root, 'a\0b')).toMatchObject({ ok: false, code: 'INVALID_PARAM' });
    expect(await resolveInWorkspace(root, '')).toMatchObject({ ok: false, code: 'INVALID_PARAM' });
  });

  it('rejects a symlink loop as INVALID_PARAM instead of hanging', async () => {
    await symlink('loop-b', path.join(root, 'loop-a'));
    await symlink('loop-a', path.join(root, 'loop-b'));
    expect(await resolveInWorkspace(root, 'loop-a')).toMatchObject({ ok: false, code: 'INVALID_PARAM' });
  });
});

describe('realWorkspaceRoot', () => {
  it('returns the realpath of a directory', async () => {
    const link = `${root}-root-link`;
    await symlink(root, link);
    try {
      expect(await realWorkspaceRoot(link)).toBe(root);
    } finally {
      await rm(link);
    }
  });

  it('throws for a file or a missing path', async () => {
    await expect(realWorkspaceRoot(path.join(root, 'src', 'a.ts'))).rejects.toThrow(/not a directory/);
    const missing = await mkdtemp(path.join(os.tmpdir(), 'gone-'));
    await rm(missing, { recursive: true });
    await expect(realWorkspaceRoot(missing)).rejects.toThrow();
  });
});

describe('isWithin', () => {
  it('compares whole path components', () => {
    expect(isWithin('/w/root', '/w/root')).toBe(true);
    expect(isWithin('/w/root', '/w/root/a')).toBe(true);
    expect(isWithin('/w/root', '/w/rootless')).toBe(false);
    expect(isWithin('/', '/anything')).toBe(true);
  });
});
