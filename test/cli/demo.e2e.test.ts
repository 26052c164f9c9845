// `durable-agent demo --provider P`: the scripted demo served in that provider's API, through its adapter, end to end.
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../support/cli.js';

const suite = cliSuite();
const { cli } = suite;

describe('durable-agent demo', () => {
  it.each(['openai', 'openai-responses'])('fixes the example through the %s API', async (provider) => {
    // PATH only: the demo checks its result with `node --test`.
    const demo = await cli(['demo', '--provider', provider, '--json'], { PATH: process.env.PATH! });
    expect(demo.exitCode, demo.stderr).toBe(0);
    expect(demo.stderr).toContain(`through the ${provider} API`);
    expect(demo.stderr).toMatch(/verified: the tests now pass/);
    expect(JSON.parse(demo.stdout)).toMatchObject({ status: 'completed', steps: 6 });
  });
});
