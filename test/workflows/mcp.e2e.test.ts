// MCP servers as durable tools, end to end against real servers: server-filesystem over stdio (a run's server),
// server-everything over Streamable HTTP (the worker's, from DURABLE_AGENT_MCP_CONFIG), and the SDK-built fixture
// server. The tools are listed once per task, called as activities, gated by their annotations, and a server that
// crashes leaves the tool list through its breaker while the run goes on.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/protocol/model.js';
import { approveToolCall, stateQuery } from '../../src/protocol/run-messages.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, toolResult, workspaceFrom } from '../support/harness.js';
import type { HttpServer } from '../support/mcp-servers.js';
import { filesystemServer, fixtureServer, startEverythingServer } from '../support/mcp-servers.js';
import { pendingApproval } from '../support/wait.js';

type Request = {
  messages: ChatMessage[];
  tools?: { function: { name: string; description: string; parameters: Record<string, any>; strict?: boolean } }[];
};

let harness: Harness;
let everything: HttpServer;

beforeAll(async () => {
  everything = await startEverythingServer();
  // The worker's own server, with its port from the worker's environment (`${VAR}` is expanded on the worker).
  const port = new URL(everything.config.url).port;
  const configFile = join(await mkdtemp(join(tmpdir(), 'durable-agent-mcp-')), 'mcp.json');
  const url = 'http://127.0.0.1:${EVERYTHING_PORT}/mcp';
  await writeFile(configFile, JSON.stringify({ mcpServers: { everything: { type: 'http', url } } }));
  harness = await startHarness({
    OPENAI_API_KEY: 'test-key',
    DURABLE_AGENT_MCP_CONFIG: configFile,
    EVERYTHING_PORT: port,
    // The runs here bring their own stdio servers, which run in the command sandbox.
    DURABLE_AGENT_MCP_RUN_SERVERS: 'all',
  });
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await everything?.close();
});

const offered = (request: Request | undefined) => (request?.tools ?? []).map((tool) => tool.function.name);

describe('MCP servers', () => {
  it("runs tools of a run's stdio server and the worker's HTTP server, with the results in the transcript", async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'notes.txt'), 'the launch code is 0000\n');
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      // Every tool listed (no selection), so the request shows what the servers declared.
      input: { maxTools: 64, mcpServers: { fs: filesystemServer(workspace) } },
      script: [
        {
          tool_calls: [
            { id: 'read', name: 'mcp__fs__read_text_file', arguments: { path: join(workspace, 'notes.txt') } },
            { id: 'echo', name: 'mcp__everything__echo', arguments: { message: 'hello' } },
            { id: 'image', name: 'mcp__everything__get-tiny-image', arguments: {} },
          ],
        },
        { content: 'The notes hold a launch code.' },
      ],
    });
    try {
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'The notes hold a launch code.' });
      const requests = model.requests as Request[];
      expect(offered(requests[0])).toEqual(
        expect.arrayContaining(['mcp__fs__read_text_file', 'mcp__fs__write_file', 'mcp__everything__echo']),
      );
      // The server's schema, as declared, and not in strict mode.
      const echo = requests[0]!.tools!.find((tool) => tool.function.name === 'mcp__everything__echo')!.function;
      expect(echo.description).toBe('Echoes back the input string');
      expect(echo.strict).toBe(false);
      expect(echo.parameters).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });

      const messages = requests[1]!.messages;
      expect(toolResult(messages, 'read')).toMatchObject({ status: 'success', text: 'the launch code is 0000\n' });
      expect(toolResult(messages, 'echo')).toMatchObject({ status: 'success', text: 'Echo: hello' });
      const image = toolResult(messages, 'image');
      expect(image.status).toBe('success');
      expect(image.data.content).toEqual([{ type: 'image', mime_type: 'image/png', bytes: expect.any(Number) }]);
      expect(JSON.stringify(image)).not.toContain('iVBORw0KGgo'); // the PNG itself never reaches the model

      // History stays flat: model requests name the stored catalog, and no tool schema travels with them.
      const history = await handle.fetchHistory();
      const modelInputs = (history.events ?? [])
        .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
        .map((event) => Buffer.from(event.activityTaskScheduledEventAttributes!.input!.payloads![0]!.data!).toString());
      expect(modelInputs).toHaveLength(2);
      for (const input of modelInputs) {
        expect(input).toMatch(/"mcpCatalog":"sha256:[0-9a-f]{64}"/);
        expect(input).not.toContain('Echoes back the input string');
      }
      const calls = (history.events ?? []).filter(
        (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callMcpTool',
      );
      expect(calls).toHaveLength(3);
    } finally {
      await model.close();
    }
  });

  it('asks before a destructive MCP tool and before one that declares nothing; runs what was approved', async () => {
    const workspace = await workspaceFrom();
    const log = join(workspace, 'fixture.log');
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { askPolicy: 'wait', mcpServers: { fs: filesystemServer(workspace), fixture: fixtureServer(log) } },
      script: [
        {
          tool_calls: [
            {
              id: 'write',
              name: 'mcp__fs__write_file',
              arguments: { path: join(workspace, 'approved.txt'), content: 'yes' },
            },
          ],
        },
        { tool_calls: [{ id: 'note', name: 'mcp__fixture__note', arguments: { text: 'not wanted' } }] },
        { content: 'done' },
      ],
    });
    try {
      const write = await pendingApproval(harness.client, handle.workflowId, 'write');
      expect(write).toMatchObject({ tool: 'mcp__fs__write_file', level: 'destructive' });
      await handle.executeUpdate(approveToolCall, { args: [{ tool_call_id: 'write', decision: 'approve' }] });
      const note = await pendingApproval(harness.client, handle.workflowId, 'note');
      expect(note).toMatchObject({ tool: 'mcp__fixture__note', level: 'unclassified' });
      await handle.executeUpdate(approveToolCall, {
        args: [{ tool_call_id: 'note', decision: 'reject', reason: 'no notes today' }],
      });
      const result = await handle.result();
      expect(result.status).toBe('completed');

      const requests = model.requests as Request[];
      expect(toolResult(requests[1]!.messages, 'write')).toMatchObject({ status: 'success' });
      expect(await readFile(join(workspace, 'approved.txt'), 'utf8')).toBe('yes');
      expect(toolResult(requests[2]!.messages, 'note').error).toMatchObject({
        code: 'PERMISSION_DENIED',
        details: { permission: { level: 'unclassified', action: 'ask' } },
      });
      // The rejected call never reached the server.
      await expect(readFile(log, 'utf8')).rejects.toThrow();
    } finally {
      await model.close();
    }
  });

  it("takes a crashed stdio server's tools out of the list through its breaker; the run goes on", async () => {
    const workspace = await workspaceFrom();
    const log = join(workspace, 'fixture.log');
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: {
        askPolicy: 'approve',
        breaker: { threshold: 1 },
        maxTools: 64,
        mcpServers: { fixture: fixtureServer(log), fs: filesystemServer(workspace) },
      },
      script: [
        { tool_calls: [{ id: 'crash', name: 'mcp__fixture__crash', arguments: {} }] },
        { content: 'The fixture server is gone; finishing without it.' },
      ],
    });
    try {
      const result = await handle.result();
      expect(result).toMatchObject({
        status: 'completed',
        answer: 'The fixture server is gone; finishing without it.',
      });
      const requests = model.requests as Request[];
      expect(offered(requests[0])).toEqual(expect.arrayContaining(['mcp__fixture__crash', 'mcp__fixture__slow_read']));
      const crash = toolResult(requests[1]!.messages, 'crash');
      expect(crash.error.code).toBe('MCP_NETWORK_ERROR');
      // Every tool of that server left the next request's list; the other server's stayed.
      expect(offered(requests[1]).filter((name) => name.startsWith('mcp__fixture__'))).toEqual([]);
      expect(offered(requests[1])).toContain('mcp__fs__read_text_file');
      const view = await handle.query(stateQuery);
      expect(view.breakers['mcp:fixture']).toMatchObject({ state: 'OPEN', failures: 1 });
      // Read-only: each of its three attempts started the server afresh and reached it.
      expect((await readFile(log, 'utf8')).match(/^crash /gm)).toHaveLength(3);
    } finally {
      await model.close();
    }
  });

  it('reports a server that cannot be listed and runs on without its tools', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { mcpServers: { broken: { command: join(workspace, 'no-such-server') } } },
      script: [{ content: 'done without it' }],
    });
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed' });
      expect(offered((model.requests as Request[])[0]).filter((name) => name.startsWith('mcp__broken__'))).toEqual([]);
      const view = await handle.query(stateQuery);
      expect(view.progress.find((entry) => entry.kind === 'error')?.text).toMatch(
        /^MCP server 'broken' is unavailable; the run goes on without its tools: .*(ENOENT|No such file)/,
      );
    } finally {
      await model.close();
    }
  });
});
