// `durable-agent demo --provider P`: the scripted demo served in that provider's API, through its adapter, end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import type { CliRunner } from '../support/cli.js';
import type { Harness } from '../support/harness.js';
import { startHarness } from '../support/harness.js';

let harness: Harness;
let cli: CliRunner;
beforeAll(async () => {
  harness = await startHarness();
  cli = cliRunner(harness);
});
afterAll(async () => {
  await harness?.close();
});

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
