// The README's CLI reference is generated from the option tables: it names every option of every command, and a table
// edited without `npm run docs:cli` fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/command-table.js';
import { REFERENCE_END, REFERENCE_START, cliReference, withReference } from '../../src/cli/reference.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe("the README's CLI reference", () => {
  it('is what the option tables give (run "npm run docs:cli" after editing one)', async () => {
    expect(readme).toContain(REFERENCE_START);
    expect(readme).toContain(REFERENCE_END);
    expect(withReference(readme, await cliReference())).toBe(readme);
  });

  it('names every command and each of its options', async () => {
    const section = readme.slice(readme.indexOf(REFERENCE_START), readme.indexOf(REFERENCE_END));
    for (const command of COMMANDS) {
      expect(section, command.name).toContain(`durable-agent ${command.name} `);
      for (const name of Object.keys((await command.loadOptions()).options))
        expect(section, `${command.name} --${name}`).toContain(`--${name}`);
    }
    expect(section).toContain('--env-pass NAME');
    expect(section).toContain('--mcp-config FILE');
  });
});
