#!/usr/bin/env node
// Runs the compiled CLI in dist/ (`npm run build`, which npm runs on install through "prepare"). In a checkout whose
// dist/ is missing or older than src/, it says so and runs the TypeScript sources through tsx instead: slower to start,
// but never stale code, and never slow without a word.
import fs from 'node:fs';
import path from 'node:path';
import { staleBuild } from './build-state.js';

const root = path.dirname(import.meta.dirname);
const stale = staleBuild(root);

/** @returns {Promise<{ main: (argv: string[]) => Promise<number> }>} */
async function load() {
  if (stale === undefined) return await import('../dist/cli/main.js');
  if (!fs.existsSync(path.join(root, 'src', 'cli', 'main.ts'))) {
    process.stderr.write(
      `durable-agent: ${stale}, and there are no sources to run instead. Run "npm run build" in ${root}.\n`,
    );
    process.exit(2);
  }
  process.stderr.write(
    `durable-agent: ${stale}; running the TypeScript sources through tsx, which starts several times slower. ` +
      'Run "npm run build" to use the compiled CLI.\n',
  );
  const { register } = await import('tsx/esm/api');
  register();
  return await import('../src/cli/main.ts');
}

const { main } = await load();
process.exitCode = await main(process.argv.slice(2));
