// The operator key file: created once, private, shared by processes that race to create it, and refused when it is
// not a key this user owns.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateOperatorKey, operatorKeyPath } from '../../../src/authorization/operator-key.js';

let stateDir: string;
beforeEach(async () => {
  stateDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'operator-key-')), 'state');
});
afterEach(async () => {
  await rm(path.dirname(stateDir), { recursive: true, force: true });
});

describe('loadOrCreateOperatorKey', () => {
  it('creates 32 random bytes readable by their owner only, in a private directory, and reads them back', async () => {
    const key = loadOrCreateOperatorKey(stateDir);
    expect(key).toHaveLength(32);
    expect((await stat(operatorKeyPath(stateDir))).mode & 0o777).toBe(0o600);
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    expect(loadOrCreateOperatorKey(stateDir).equals(key)).toBe(true);
  });

  it('gives processes that create it at once the same key', async () => {
    const script = `import('${path.resolve('src/authorization/operator-key.ts')}').then((m) => process.stdout.write(m.loadOrCreateOperatorKey(process.argv[1]).toString('hex')))`;
    const runs = await Promise.all(
      [1, 2, 3].map(() => execa(process.execPath, ['--import', 'tsx', '-e', script, stateDir])),
    );
    const keys = new Set(runs.map((run) => run.stdout));
    expect(keys.size).toBe(1);
    expect(loadOrCreateOperatorKey(stateDir).toString('hex')).toBe([...keys][0]);
  });

  it('makes a key others can read private again, and refuses a file that is no key', async () => {
    loadOrCreateOperatorKey(stateDir);
    const file = operatorKeyPath(stateDir);
    await writeFile(file, Buffer.alloc(32, 1), { mode: 0o644 });
    await import('node:fs/promises').then((fs) => fs.chmod(file, 0o644));
    expect(loadOrCreateOperatorKey(stateDir).equals(Buffer.alloc(32, 1))).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await writeFile(file, 'short');
    expect(() => loadOrCreateOperatorKey(stateDir)).toThrow(/holds 5 bytes, not a 32-byte key/);
  });
});
