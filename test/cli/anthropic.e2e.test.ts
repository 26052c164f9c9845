// The anthropic provider end to end, through the real CLI and the real Anthropic SDK against the scripted server's
// Messages API: the demo, and a run whose OpenAI model fails for good falling back to Claude.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../support/cli.js';
import { workspaceFrom } from '../support/harness.js';

const suite = cliSuite();
const { cli } = suite;

describe('--provider anthropic', () => {
  it('runs the demo through the Messages API and the tests pass afterwards', async () => {
    const demo = await cli(['demo', '--provider', 'anthropic', '--json']);
    expect(demo.exitCode, demo.stderr).toBe(0);
    expect(demo.stderr).toContain('through the anthropic API');
    expect(demo.stderr).toContain('verified: the tests now pass');
    expect(JSON.parse(demo.stdout.trim().split('\n').at(-1)!)).toMatchObject({ status: 'completed' });
  });

  it('takes over when the primary OpenAI model fails for good, and the run completes', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
    const script = join(workspace, 'script.json');
    await writeFile(
      script,
      JSON.stringify([
        // The OpenAI call is refused (a 400 is not retried): the step moves to the fallback model.
        { error: { status: 400 } },
        { tool_calls: [{ id: 'toolu_read', name: 'ReadFile', arguments: { path: 'notes.txt' } }] },
        { content: 'notes.txt has 2 lines.', expect: { last_tool_contains: ['alpha'] } },
      ]),
    );
    const run = await cli([
      'run',
      '--cwd',
      workspace,
      '--json',
      '--provider',
      'openai',
      '--script',
      script,
      '--fallback-model',
      'anthropic:claude-sonnet-4-5',
      'count the lines',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(result).toMatchObject({ status: 'completed', answer: 'notes.txt has 2 lines.', toolCalls: 1 });
  });
});
