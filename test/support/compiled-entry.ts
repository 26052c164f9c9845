// A TypeScript entry point and the sources it imports, compiled once into one ES module that plain `node` runs (the
// packages stay imports, resolved from the repository's node_modules). A child process started through tsx's module
// hooks spends about a second of CPU loading the sources; compiled, a fraction of that — for tests that start many.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// Inside the repository, so the compiled file resolves packages from its node_modules as the sources do.
const directory = fileURLToPath(new URL('../../node_modules/.cache/durable-agent-tests/', import.meta.url));
const compiled = new Map<string, Promise<string>>();

/**
 * The path of `entry` compiled, built once per test process: to a file of its own, renamed into place, so processes
 * building the same entry at once never run a half-written file.
 */
export function compiledEntry(entry: string): Promise<string> {
  let built = compiled.get(entry);
  if (!built) {
    built = compile(entry);
    compiled.set(entry, built);
  }
  return built;
}

async function compile(entry: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  const name = `${path.basename(entry, '.ts')}-${createHash('sha256').update(entry).digest('hex').slice(0, 8)}.mjs`;
  const target = path.join(directory, name);
  const partial = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  await build({
    entryPoints: [entry],
    outfile: partial,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  });
  await rename(partial, target);
  return target;
}
