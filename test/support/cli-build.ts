// The CLI the tests spawn runs the compiled code in dist/ (bin/durable-agent.js): when dist/ is missing or older than
// src/, it is built first, so CLI tests exercise the sources under test, compiled as a user runs them.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { staleBuild } from '../../bin/build-state.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `tsc -p tsconfig.build.json` and bundles the workflows (as `npm run build` does, without emptying dist/) when
 * dist/ is out of date.
 */
export async function buildCliIfStale(log: (line: string) => void): Promise<void> {
  const reason = staleBuild(root);
  if (reason === undefined) return;
  const started = Date.now();
  log(`building dist/ (${reason})`);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = await execa(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    reject: false,
    all: true,
  });
  const still = staleBuild(root);
  if (still !== undefined)
    throw new Error(`tsc -p tsconfig.build.json left dist/ out of date (${still}):\n${result.all}`);
  // tsc writes its output despite type errors; the CLI tests can run, and `npm run typecheck` reports the errors.
  if (result.exitCode !== 0) log(`tsc reported errors (dist/ was written all the same):\n${result.all}`);
  await execa(process.execPath, ['scripts/bundle-workflows.mjs'], { cwd: root });
  log(`built dist/ in ${Date.now() - started} ms`);
}
