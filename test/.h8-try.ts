import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classifyBash } from '../src/activities/classify-bash.js';
const ws = await mkdtemp(path.join(tmpdir(), 'h8-'));
await mkdir(path.join(ws, 'src'));
await writeFile(path.join(ws, 'existing.txt'), 'x');
await writeFile(path.join(ws, 'a.txt'), 'x');
for (const command of process.argv.slice(2)) {
  const t0 = performance.now();
  const result = await classifyBash({ command, cwd: '.', workspace: ws, home: '/home/someone' });
  const ms = (performance.now() - t0).toFixed(1);
  console.log(`${command.padEnd(40)} ${result.level.padEnd(13)} ${result.outcome.padEnd(5)} ${(result.denyCode ?? '').padEnd(17)} ${result.rule} | ${result.reason} ${ms}ms`);
  if (process.env.SEG) for (const s of result.segments) console.log('    ', JSON.stringify(s));
}
