// `durable-agent run --mcp-config FILE`, end to end: the CLI validates the file and records the servers in the run's
// input unexpanded; the worker fills in `${VAR}` from its own environment and runs the tools. A run's stdio server
// needs a worker that allows it (DURABLE_AGENT_MCP_RUN_SERVERS=all), and runs in its command sandbox.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/protocol/model.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import { cliRunner, cliSuite } from '../support/cli.js';
import { startHarness, toolResult, workspaceFrom } from '../support/harness.js';
import { filesystemServer, fixtureServer } from '../support/mcp-servers.js';
import { makeOutsideDirectory } from '../support/outside-directory.js';

let notes: string;
const suite = cliSuite(async () => {
  // The worker's environment holds the directory the run's config refers to as ${NOTES_DIR}: outside /tmp, which the
  // sandbox replaces with its own, so the run's server sees it (read-only).
  notes = await makeOutsideDirectory();
  return { OPENAI_API_KEY: 'test-key', NOTES_DIR: notes, DURABLE_AGENT_MCP_RUN_SERVERS: 'all' };
});
const { cli } = suite;
afterAll(async () => {
  if (notes) await rm(notes, { recursive: true, force: true });
});

async function configFile(value: unknown): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'durable-agent-mcp-config-')), 'mcp.json');
  await writeFile(file, JSON.stringify(value));
  return file;
}

describe('run --mcp-config', () => {
  it("runs a tool of the file's server, with ${VAR} filled in on the worker and kept out of the input", async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'todo.txt'), 'ship it\n');
    const fs = filesystemServer(workspace);
    const file = await configFile({
      mcpServers: { fs: { ...fs, args: [...fs.args!, '${NOTES_DIR}'] } },
    });
    const model = await startScriptedModelServer({
      script: [
        { tool_calls: [{ id: 'dirs', name: 'mcp__fs__list_allowed_directories', arguments: {} }] },
        {
          tool_calls: [
            { id: 'read', name: 'mcp__fs__read_text_file', arguments: { path: join(workspace, 'todo.txt') } },
          ],
        },
        { content: 'The todo says: ship it.' },
      ],
    });
    try {
      const run = await cli(['run', '--cwd', workspace, '--json', '--base-url', model.url, '--mcp-config', file, 'x']);
      expect(run.exitCode, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result).toMatchObject({ status: 'completed', answer: 'The todo says: ship it.', toolCalls: 2 });
      const requests = model.requests as { messages: ChatMessage[] }[];
      // The worker expanded ${NOTES_DIR}: the server was allowed the worker's notes directory too.
      expect(toolResult(requests[1]!.messages, 'dirs').text).toContain(notes);
      expect(toolResult(requests[2]!.messages, 'read')).toMatchObject({ status: 'success', text: 'ship it\n' });
      // The run's input holds the variable, never its value.
      const history = await suite.harness.client.workflow.getHandle(result.workflowId).fetchHistory();
      const started = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!;
      expect(Buffer.from(started).toString()).toContain('${NOTES_DIR}');
      expect(Buffer.from(started).toString()).not.toContain(notes);
    } finally {
      await model.close();
    }
  });

  it('refuses a file with an unknown field, naming the server and the field', async () => {
    const file = await configFile({ mcpServers: { fs: { command: 'node', argz: [] } } });
    const run = await cli(['run', '--cwd', await workspaceFrom(), '--mcp-config', file, 'x']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('mcpServers.fs: unknown field "argz"');
  });

  it("refuses a server that would read the worker's credentials", async () => {
    const file = await configFile({
      mcpServers: { api: { type: 'http', url: 'https://example.test/mcp', headers: { key: '${OPENAI_API_KEY}' } } },
    });
    const run = await cli(['run', '--cwd', await workspaceFrom(), '--mcp-config', file, 'x']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("mcpServers.api uses ${OPENAI_API_KEY}: OPENAI_API_KEY is one of the worker's own");
  });

  it("a worker not told otherwise starts no run's stdio server, and the run says why and what allows it", async () => {
    const plain = await startHarness({ OPENAI_API_KEY: 'test-key' });
    const model = await startScriptedModelServer({ script: [{ content: 'done without it' }] });
    try {
      const workspace = await workspaceFrom();
      const file = await configFile({ mcpServers: { fixture: fixtureServer(join(workspace, 'fixture.log')) } });
      const run = await cliRunner(plain)([
        'run',
        '--cwd',
        workspace,
        '--json',
        '--base-url',
        model.url,
        '--mcp-config',
        file,
        'x',
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      const { workflowId } = JSON.parse(run.stdout) as { workflowId: string };
      const view = await plain.client.workflow.getHandle(workflowId).query(stateQuery);
      expect(view.progress.find((entry) => entry.kind === 'error')?.text).toMatch(
        /^MCP server 'fixture' is unavailable; .*DURABLE_AGENT_MCP_RUN_SERVERS=http.*DURABLE_AGENT_MCP_RUN_SERVERS=all/,
      );
    } finally {
      await model.close();
      await plain.close();
    }
  });
});
