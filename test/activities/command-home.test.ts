// The commands' HOME is made 0700 one component at a time, and a link or a file anywhere on its path refuses it.
import { mkdtemp, realpath, rm, stat, symlink, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandHomeError, ensureCommandHome } from '../../src/activities/executors/command-home.js';
import { commandHomeDirectory } from '../../src/activities/worker-data.js';

let base: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'command-home-')));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('ensureCommandHome', () => {
  it('creates the missing components, the new ones private to the worker', async () => {
    const data = path.join(base, 'data', 'workspace');
    const home = await ensureCommandHome(data);
    expect(home).toBe(path.resolve(commandHomeDirectory(data)));
    expect((await stat(home)).isDirectory()).toBe(true);
    expect((await stat(home)).mode & 0o077).toBe(0);
    expect(await ensureCommandHome(data)).toBe(home);
  });

  it('refuses a symbolic link on the path, naming the component', async () => {
    await mkdir(path.join(base, 'elsewhere'));
    await symlink(path.join(base, 'elsewhere'), path.join(base, 'linked'));
    const failure = ensureCommandHome(path.join(base, 'linked', 'workspace'));
    await expect(failure).rejects.toThrow(CommandHomeError);
    await expect(failure).rejects.toThrow(`${path.join(base, 'linked')} is a symbolic link`);
  });

  it('refuses a file where a directory must be', async () => {
    await writeFile(path.join(base, 'file'), 'x');
    await expect(ensureCommandHome(path.join(base, 'file', 'workspace'))).rejects.toThrow(
      `${path.join(base, 'file')} is not a directory`,
    );
  });
});
