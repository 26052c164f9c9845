// Writes the README's CLI reference from the command and option tables (src/cli/reference.ts): `npm run docs:cli`.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cliReference, withReference } from '../src/cli/reference.js';

const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
const readme = readFileSync(readmePath, 'utf8');
const updated = withReference(readme, await cliReference());
if (updated === readme) console.log('README.md: the CLI reference is up to date');
else {
  writeFileSync(readmePath, updated);
  console.log('README.md: the CLI reference was rewritten from the option tables');
}
