// bin/durable-agent.js picks what to run: the compiled dist/ when it is up to date, the sources through tsx (saying so)
// when a checkout's dist/ is missing or older than src/, and a clear error when neither exists.
import { copyFile, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staleBuild } from '../../bin/build-state.js';

const repository = fileURLToPath(new URL('../..', import.meta.url));
let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-bin-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes `content` at `relative` under the package root, with its modification time `secondsAgo` in the past. */
async function file(relative: string, content: string, secondsAgo = 0): Promise<void> {
  const absolute = path.join(root, relative);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, content);
  const time = new Date(Date.now() - secondsAgo * 1000);
  await utimes(absolute, time, time);
}

const compiledMain = `export async function main(argv) { process.stdout.write('compiled ' + argv.join(' ')); return 0; }\n`;
const sourceMain = `export async function main(argv: string[]): Promise<number> { process.stdout.write('source ' + argv.join(' ')); return 0; }\n`;

describe('staleBuild', () => {
  it('accepts a dist/ where every source has a compiled file at least as new', async () => {
    await file('src/cli/main.ts', sourceMain, 60);
    await file('src/core/state.ts', '', 60);
    await file('src/core/types.d.ts', '', 0); // a declaration file compiles to nothing
    await file('dist/cli/main.js', compiledMain, 30);
    await file('dist/core/state.js', '', 30);
    expect(staleBuild(root)).toBeUndefined();
  });

  it('names a source changed after the build, and one never compiled', async () => {
    await file('src/cli/main.ts', sourceMain, 60);
    await file('src/core/state.ts', '', 10);
    await file('dist/cli/main.js', compiledMain, 30);
    await file('dist/core/state.js', '', 30);
    expect(staleBuild(root)).toBe('src/core/state.ts changed after the last build');

    await file('src/core/state.ts', '', 60);
    await file('src/core/new-module.ts', '', 60);
    expect(staleBuild(root)).toBe('src/core/new-module.ts is not compiled in dist/');
  });

  it('reports a missing build, and trusts dist/ where there are no sources to compare (an installed package)', async () => {
    await file('src/cli/main.ts', sourceMain);
    expect(staleBuild(root)).toBe('dist/ holds no build (dist/cli/main.js is missing)');

    await rm(path.join(root, 'src'), { recursive: true });
    await file('dist/cli/main.js', compiledMain);
    expect(staleBuild(root)).toBeUndefined();
  });
});

describe('bin/durable-agent.js', () => {
  beforeEach(async () => {
    await mkdir(path.join(root, 'bin'));
    for (const name of ['durable-agent.js', 'build-state.js'])
      await copyFile(path.join(repository, 'bin', name), path.join(root, 'bin', name));
    await file('package.json', JSON.stringify({ type: 'module' }));
    // tsx, for the fallback, resolves from the package's own node_modules.
    await symlink(path.join(repository, 'node_modules'), path.join(root, 'node_modules'));
  });

  const run = (...args: string[]) =>
    execa(process.execPath, [path.join(root, 'bin', 'durable-agent.js'), ...args], { reject: false, stdin: 'ignore' });

  it('runs the compiled CLI without a word when dist/ is up to date', async () => {
    await file('src/cli/main.ts', sourceMain, 60);
    await file('dist/cli/main.js', compiledMain, 30);
    const result = await run('status', 'x');
    expect(result).toMatchObject({ exitCode: 0, stdout: 'compiled status x', stderr: '' });
  });

  it('runs the sources through tsx when they changed after the build, and says what to run', async () => {
    await file('src/cli/main.ts', sourceMain, 10);
    await file('dist/cli/main.js', compiledMain, 30);
    const result = await run('list');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('source list');
    expect(result.stderr).toContain('src/cli/main.ts changed after the last build');
    expect(result.stderr).toContain('npm run build');
  });

  it('exits 2 with what to run when there is neither a build nor sources', async () => {
    const result = await run('--help');
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/dist\/cli\/main\.js is missing.*no sources to run instead\. Run "npm run build"/);
  });
});
