import { bashParser } from '../src/activities/bash-classifier/parser.js';
const parser = await bashParser();
for (const c of ['ls', 'su -c id', 'echo a', 'git status', 'ls -la', 'x y z']) {
  const t0 = performance.now(); const t = parser.parse(c)!; const ms = performance.now() - t0; t.delete(); console.log(c, ms.toFixed(1));
}
