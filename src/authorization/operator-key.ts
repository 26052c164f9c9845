// Node: the operator's key — 32 random bytes in the embedded server's state directory (0700), readable by its owner
// only. The CLI signs the runs it starts and the decisions it sends with it; the embedded worker verifies them.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

const KEY_FILE = 'operator.key';
const KEY_BYTES = 32;

/** The key's file in a state directory. */
export function operatorKeyPath(stateDir: string): string {
  return path.join(stateDir, KEY_FILE);
}

/** The key of `stateDir`, created on first use: written to a private temporary file, then linked into place. */
export function loadOrCreateOperatorKey(stateDir: string): Buffer {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = operatorKeyPath(stateDir);
  const existing = readKey(file);
  if (existing) return existing;
  const temporary = path.join(stateDir, `.${KEY_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(temporary, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
  try {
    // link() fails when the name exists: two processes creating the key at once end up with the same one.
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  const key = readKey(file);
  if (!key) throw new Error(`${file}: the operator key could not be created`);
  return key;
}

/** The key in `file`; undefined when there is none. One that others could read is made private again. */
function readKey(file: string): Buffer | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) throw new Error(`${file} is not a regular file`);
    if (process.getuid && stats.uid !== process.getuid())
      throw new Error(`${file} belongs to uid ${stats.uid}, not to this user: refusing to use it as the operator key`);
    if ((stats.mode & 0o077) !== 0) chmodSync(file, 0o600);
    const key = readFileSync(descriptor);
    if (key.length !== KEY_BYTES) throw new Error(`${file} holds ${key.length} bytes, not a ${KEY_BYTES}-byte key`);
    return key;
  } finally {
    closeSync(descriptor);
  }
}
