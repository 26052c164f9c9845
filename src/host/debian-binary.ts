// Node: one program of a Debian package, fetched with `apt-get download` (no root needed) and unpacked with `dpkg-deb`
// into the cache, for tools a fresh machine may lack (bubblewrap for the command sandbox, ripgrep for the tests).
import { copyFile, chmod, mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

const DOWNLOAD_TIMEOUT_MS = 120_000;

/** Fetches `pkg` and puts its file `binary` (e.g. `usr/bin/rg`) at `destination`, executable; throws on failure. */
export async function fetchDebianBinary(pkg: string, binary: string, destination: string): Promise<void> {
  const staging = await mkdtemp(path.join(os.tmpdir(), `durable-agent-${pkg}-`));
  try {
    await execa('apt-get', ['download', pkg], { cwd: staging, timeout: DOWNLOAD_TIMEOUT_MS, stdin: 'ignore' });
    const archive = (await readdir(staging)).find((name) => name.endsWith('.deb'));
    if (!archive) throw new Error('apt-get download left no .deb');
    const extracted = path.join(staging, 'root');
    await execa('dpkg-deb', ['-x', path.join(staging, archive), extracted], { timeout: DOWNLOAD_TIMEOUT_MS });
    await mkdir(path.dirname(destination), { recursive: true });
    // Staged next to its destination and renamed, so a concurrent start never sees half a binary.
    const partial = `${destination}.${process.pid}.partial`;
    await copyFile(path.join(extracted, binary), partial);
    await chmod(partial, 0o755);
    await rename(partial, destination);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
