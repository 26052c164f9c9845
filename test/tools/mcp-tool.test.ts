import { describe, expect, it } from 'vitest';
import { fixArguments } from '../../src/core/arguments/fix-arguments.js';
import { decidePermission } from '../../src/core/permissions/index.js';
import { TOOL_NAME_PATTERN } from '../../src/tools/registry.js';
import { createMcpTool, mcpActivityPolicy, mcpRisk, mcpToolNames } from '../../src/tools/mcp-tool.js';
import type { McpToolDescriptor } from '../../src/protocol/mcp.js';
import { toAnthropicTool } from '../../src/providers/anthropic/anthropic-request.js';
import { toToolSchema } from '../../src/tools/schema-export.js';
import { recordMcpTools } from '../../src/core/run/mcp-tools.js';
import { initialState } from '../../src/core/state.js';
import { createTaskRegistry } from '../../src/tools/task-registry.js';

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { path: { type: 'string' }, depth: { type: 'integer', default: 1 } },
  required: ['path'],
  additionalProperties: false,
};

function descriptor(overrides: Partial<McpToolDescriptor> = {}): McpToolDescriptor {
  return {
    name: 'mcp__fs__tree',
    server: 'fs',
    tool: 'tree',
    description: 'Lists a directory tree.',
    inputSchema: schema,
    ...overrides,
  };
}

describe('MCP annotations → safety', () => {
  it.each([
    [undefined, 'unclassified', 'command', false, 1],
    [{}, 'unclassified', 'command', false, 1],
    [{ readOnlyHint: true }, 'read_only', 'read', true, 3],
    [{ readOnlyHint: true, openWorldHint: true }, 'read_only', 'read', true, 3],
    [{ readOnlyHint: false }, 'destructive', 'command', false, 1],
    [{ destructiveHint: true, idempotentHint: true }, 'destructive', 'command', false, 3],
    [{ readOnlyHint: false, destructiveHint: false, openWorldHint: false }, 'write', 'command', false, 1],
    [{ readOnlyHint: false, destructiveHint: false }, 'network_write', 'command', false, 1],
    [{ destructiveHint: false, idempotentHint: true, openWorldHint: false }, 'write', 'command', false, 3],
  ] as const)(
    '%j → risk %s, category %s, concurrency-safe %s, %d attempts',
    (hints, risk, category, safe, attempts) => {
      const contract = createMcpTool(descriptor(hints ? { annotations: hints } : {}));
      expect(mcpRisk(hints)).toBe(risk);
      expect(contract).toMatchObject({ risk, category, confirmation: 'declared', origin: 'mcp', breakerKey: 'mcp:fs' });
      expect(contract.isConcurrencySafe({})).toBe(safe);
      expect(contract.activity({})).toMatchObject({ maximumAttempts: attempts });
    },
  );

  it('asks in default mode when the tool declares nothing, and allows a read-only one even in read-only mode', () => {
    const decide = (hints: McpToolDescriptor['annotations'], mode: 'default' | 'read_only') =>
      decidePermission(
        { tool: createMcpTool(descriptor(hints ? { annotations: hints } : {})), input: {} },
        { mode, enabled: true, approvals: new Set() },
      );
    expect(decide(undefined, 'default')).toMatchObject({ action: 'ask', level: 'unclassified' });
    expect(decide({ destructiveHint: true }, 'default')).toMatchObject({ action: 'ask', level: 'destructive' });
    expect(decide({ readOnlyHint: true }, 'read_only')).toMatchObject({ action: 'allow', level: 'read_only' });
    expect(decide(undefined, 'read_only')).toMatchObject({ action: 'deny', rule: 'read_only_mode' });
  });

  it('gives the activity the call timeout plus a margin', () => {
    expect(mcpActivityPolicy({ timeoutMs: 10_000 }).startToCloseTimeoutMs).toBe(25_000);
    expect(mcpActivityPolicy({}).startToCloseTimeoutMs).toBe(315_000);
  });
});

describe('MCP contracts in the registry', () => {
  it("exports the server's schema as given (without $schema) and not in strict mode", () => {
    const contract = createMcpTool(descriptor());
    const { $schema: _dropped, ...declared } = schema;
    expect(toToolSchema(contract)).toEqual({
      type: 'function',
      function: { name: 'mcp__fs__tree', description: 'Lists a directory tree.', parameters: declared, strict: false },
    });
    expect(toAnthropicTool(contract).input_schema).toEqual(declared);
  });

  it('accepts an object schema without properties (a tool without parameters)', () => {
    const registry = createTaskRegistry([], [descriptor({ inputSchema: { type: 'object' } })]);
    expect(registry.getSchemas({ mode: 'default' }).at(-1)!.function.parameters).toEqual({ type: 'object' });
  });

  it("repairs arguments against the server's schema", () => {
    const fixed = fixArguments(createMcpTool(descriptor()), { path: 'src', depth: '2', colour: 'red' });
    expect(fixed).toMatchObject({ ok: true, input: { path: 'src', depth: 2 }, ignoredParams: ['colour'] });
    expect(fixArguments(createMcpTool(descriptor()), { depth: 2 })).toMatchObject({
      ok: false,
      details: { reason: 'missing_required', missing: ['path'] },
    });
  });

  it("hides every tool of a server whose breaker is open, and only that server's", () => {
    const registry = createTaskRegistry(
      [],
      [
        descriptor(),
        descriptor({ name: 'mcp__fs__read', tool: 'read' }),
        descriptor({ name: 'mcp__git__log', server: 'git', tool: 'log' }),
      ],
    );
    const names = registry.visible({ mode: 'default', openTools: new Set(['mcp:fs']) }).map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith('mcp__'))).toEqual(['mcp__git__log']);
  });

  it('leaves out a tool whose name is already taken instead of failing, and says so when the task records it', () => {
    const functionTools = [{ name: 'mcp__fs__tree', description: 'a function', risk: 'read_only' as const }];
    const registry = createTaskRegistry(functionTools, [descriptor()]);
    expect(registry.get('mcp__fs__tree')?.origin).toBe('function');

    const state = initialState('task', 'system', 'look around');
    state.functionTools = functionTools;
    const kept = descriptor({ name: 'mcp__fs__read', tool: 'read' });
    recordMcpTools(state, { catalog: 'sha256:catalog', tools: [descriptor(), kept], unavailable: [] }, 1000);
    expect(state.mcp?.tools).toEqual([kept]);
    expect(state.events.at(-1)).toMatchObject({
      type: 'mcp_tool_refused',
      data: { server: 'fs', tool: 'mcp__fs__tree', reason: "Tool 'mcp__fs__tree' is already registered." },
    });
    expect(state.progress.at(-1)).toMatchObject({
      kind: 'error',
      text: "MCP tool 'mcp__fs__tree' of server 'fs' is left out: Tool 'mcp__fs__tree' is already registered.",
    });
  });
});

describe('mcpToolNames', () => {
  it('sanitises to the registry pattern and keeps names unique, case-insensitively', () => {
    const names = mcpToolNames([
      { server: 'my.server', tool: 'get file' },
      { server: 'my.server', tool: 'get_file' },
      { server: 'git', tool: 'Log' },
      { server: 'git', tool: 'log' },
    ]);
    expect(names[0]).toBe('mcp__my_server__get_file');
    expect(names[1]).toMatch(/^mcp__my_server__get_file_[0-9a-f]{8}$/);
    expect(names[2]).toBe('mcp__git__Log');
    expect(names[3]).toMatch(/^mcp__git__log_[0-9a-f]{8}$/);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
  });

  it('cuts a long name to 64 characters with a stable hash', () => {
    const long = { server: 'a-rather-long-server-name', tool: 'an_even_longer_tool_name_that_goes_on_and_on' };
    const [first] = mcpToolNames([long]);
    expect(first).toHaveLength(64);
    expect(first).toMatch(TOOL_NAME_PATTERN);
    expect(mcpToolNames([long])[0]).toBe(first);
    expect(mcpToolNames([{ ...long, tool: `${long.tool}_2` }])[0]).not.toBe(first);
  });
});
