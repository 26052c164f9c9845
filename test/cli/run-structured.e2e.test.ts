// `durable-agent run --output-schema` and `--tool-choice` through the real compiled CLI, against a real server and
// the scripted model.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { cliSuite } from '../support/cli.js';
import { workspaceFrom } from '../support/harness.js';

const schema = {
  type: 'object',
  properties: { lines: { type: 'integer' } },
  required: ['lines'],
  additionalProperties: false,
};

const suite = cliSuite();
const { cli } = suite;

async function schemaFile(workspace: string, content: string): Promise<string> {
  const path = join(workspace, 'schema.json');
  await writeFile(path, content);
  return path;
}

describe('run --output-schema', () => {
  it('prints the result as JSON on stdout, and in run --json and status --json', async () => {
    const workspace = await workspaceFrom();
    const file = await schemaFile(workspace, JSON.stringify(schema));
    const model = await startScriptedModelServer({
      script: [
        { tool_calls: [{ name: 'FinalResult', arguments: { lines: 'three' } }] },
        { tool_calls: [{ name: 'FinalResult', arguments: { lines: 3 } }] },
        { tool_calls: [{ name: 'FinalResult', arguments: { lines: 3 } }] },
      ],
    });
    try {
      const plain = await cli(['run', '--cwd', workspace, '--base-url', model.url, '--output-schema', file, 'count']);
      expect(plain.exitCode, plain.stderr).toBe(0);
      expect(JSON.parse(plain.stdout)).toEqual({ lines: 3 });

      const json = await cli([
        'run',
        '--cwd',
        workspace,
        '--json',
        '--base-url',
        model.url,
        '--output-schema',
        file,
        'count',
      ]);
      expect(json.exitCode, json.stderr).toBe(0);
      const result = JSON.parse(json.stdout);
      expect(result).toMatchObject({ status: 'completed', answer: null, result: { lines: 3 } });
      const tools = (model.requests.at(-1) as { tools: { function: { name: string } }[] }).tools;
      expect(tools.map((tool) => tool.function.name)).toContain('FinalResult');

      const status = await cli(['status', result.workflowId, '--json']);
      expect(status.exitCode, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ status: 'completed', result: { lines: 3 } });
    } finally {
      await model.close();
    }
  });

  it('refuses an unreadable file, invalid JSON and an invalid schema as usage errors', async () => {
    const workspace = await workspaceFrom();
    const run = (file: string) => cli(['run', '--cwd', workspace, '--output-schema', file, 'x']);
    const missing = await run(join(workspace, 'missing.json'));
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('cannot read it (ENOENT)');
    const notJson = await run(await schemaFile(workspace, '{ nope'));
    expect(notJson.exitCode).toBe(2);
    expect(notJson.stderr).toContain('not valid JSON');
    const invalid = await run(await schemaFile(workspace, '{"type":"object","properties":{"a":{"type":"nope"}}}'));
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).toContain('invalid JSON Schema');
    const notObject = await run(await schemaFile(workspace, '{"type":"array"}'));
    expect(notObject.exitCode).toBe(2);
    expect(notObject.stderr).toContain('must describe an object');
  });
});

describe('run --tool-choice', () => {
  it('sends the choice on the wire', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({ script: [{ content: 'no tools needed' }] });
    try {
      const run = await cli([
        'run',
        '--cwd',
        workspace,
        '--json',
        '--base-url',
        model.url,
        '--tool-choice',
        'none',
        'x',
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', answer: 'no tools needed', toolCalls: 0 });
      expect((model.requests[0] as unknown as { tool_choice: unknown }).tool_choice).toBe('none');
    } finally {
      await model.close();
    }
  });

  it('names a tool the run can call, or is a usage error listing them', async () => {
    const workspace = await workspaceFrom();
    const unknown = await cli(['run', '--cwd', workspace, '--tool-choice', 'WriteFile', '--mode', 'read-only', 'x']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain(
      '--tool-choice must be auto, required, none or a tool the run can call (Glob, Grep, ReadFile), got "WriteFile"',
    );
    const model = await startScriptedModelServer({ script: [{ content: 'globbed' }] });
    try {
      const run = await cli([
        'run',
        '--cwd',
        workspace,
        '--json',
        '--base-url',
        model.url,
        '--tool-choice',
        'Glob',
        'x',
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      expect((model.requests[0] as unknown as { tool_choice: unknown }).tool_choice).toEqual({
        type: 'function',
        function: { name: 'Glob' },
      });
    } finally {
      await model.close();
    }
  });
});
