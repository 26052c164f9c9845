// scripts/compose-check built once per version of its sources and kept in the cache: the Compose specification's own
// loader (compose-go), which interpolates, validates against the Compose schema and normalises a compose file.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { cacheDir } from '../../src/host/state-dir.js';

const source = fileURLToPath(new URL('../../scripts/compose-check/', import.meta.url));

/** The path of the built checker, building it with `go build` when this version of its sources is not cached. */
export async function composeCheck(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'main.go']) hash.update(await fs.readFile(path.join(source, file)));
  const binary = path.join(cacheDir(), 'bin', `compose-check-${hash.digest('hex').slice(0, 12)}`);
  try {
    await fs.access(binary);
    return binary;
  } catch {
    // Not built yet.
  }
  await fs.mkdir(path.dirname(binary), { recursive: true });
  const staging = `${binary}.${process.pid}.tmp`;
  await execa('go', ['build', '-o', staging, '.'], {
    cwd: source,
    env: { CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly' },
    stdin: 'ignore',
  });
  await fs.rename(staging, binary);
  return binary;
}

/** Loads `file` with only `env` visible to interpolation: the project as the loader sees it, or its error. */
export async function loadCompose(
  file: string,
  env: Record<string, string> = {},
): Promise<{ ok: true; project: ComposeProject } | { ok: false; error: string }> {
  const args = [...Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]), file];
  const result = await execa(await composeCheck(), args, { reject: false, stdin: 'ignore' });
  if (result.exitCode === 0) return { ok: true, project: JSON.parse(result.stdout) as ComposeProject };
  return { ok: false, error: result.stderr };
}

/** The parts of a loaded project the tests read. */
export interface ComposeProject {
  services: Record<
    string,
    {
      image?: string;
      environment?: Record<string, string | null>;
      ports?: { target: number; published: string; host_ip?: string }[];
      command?: string[] | null;
      deploy?: { replicas?: number };
    }
  >;
}
