// Models without function calling, end to end through the compiled CLI: `--tool-protocol react`, and the automatic
// switch when the endpoint refuses tools.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../support/cli.js';
import { workspaceFrom } from '../support/harness.js';

const suite = cliSuite();
const { cli } = suite;

let scripts = 0;
async function scriptIn(workspace: string, turns: unknown[]): Promise<string> {
  scripts += 1;
  const path = join(workspace, `script-${scripts}.json`);
  await writeFile(path, JSON.stringify(turns));
  return path;
}

describe('--tool-protocol', () => {
  it('demo --tool-protocol react fixes the bug with tools offered in the prompt and calls read from text', async () => {
    const demo = await cli(['demo', '--tool-protocol', 'react', '--json']);
    expect(demo.exitCode, demo.stderr).toBe(0);
    expect(demo.stderr).toContain('verified: the tests now pass');
    const result = JSON.parse(demo.stdout.trim());
    // The scripted model wrote its answer as "Final Answer: Fixed: …", which only the text protocol reads this way.
    expect(result).toMatchObject({ status: 'completed', steps: 6, toolCalls: 8 });
    expect(result.answer).toMatch(/^Fixed: `subtotal` in src\/cart\.js/);
  });

  it('run --tool-protocol react reaches the worker: an answer in the text format is read, not passed on', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
    const turns = [
      { raw_content: 'Thought: read it\nAction: ReadFile\nAction Input: {"path": "notes.txt"}' },
      { raw_content: 'Final Answer: notes.txt has 2 lines.', expect: { last_tool_contains: ['beta'] } },
    ];
    const args = ['run', '--cwd', workspace, '--json', '--ask', 'deny', 'count the lines'];
    const react = await cli([...args, '--tool-protocol', 'react', '--script', await scriptIn(workspace, turns)]);
    expect(react.exitCode, react.stderr).toBe(0);
    expect(JSON.parse(react.stdout)).toMatchObject({
      status: 'completed',
      answer: 'notes.txt has 2 lines.',
      toolCalls: 1,
    });
    // The same script to a native run is plain text: its first answer is the run's answer.
    const native = await cli([...args, '--tool-protocol', 'native', '--script', await scriptIn(workspace, turns)]);
    expect(native.exitCode, native.stderr).toBe(0);
    expect(JSON.parse(native.stdout)).toMatchObject({ status: 'completed', toolCalls: 0 });
  });

  it('switches to the text protocol by itself when the endpoint refuses tools', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
    const script = await scriptIn(workspace, [
      { reject_tools: true, content: 'Reading.', tool_calls: [{ name: 'ReadFile', arguments: { path: 'notes.txt' } }] },
      { content: 'notes.txt has 2 lines.', expect: { last_tool_contains: ['beta'] } },
    ]);
    const run = await cli(['run', '--cwd', workspace, '--json', '--ask', 'deny', '--script', script, 'count lines']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'completed',
      answer: 'notes.txt has 2 lines.',
      toolCalls: 1,
    });
  });

  it('is a usage error with any other value', async () => {
    const run = await cli(['run', '--tool-protocol', 'xml', 'x']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--tool-protocol must be native or react, got "xml"');
  });
});
