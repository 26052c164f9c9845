import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import type { ToolContract } from '../../src/tools/define-tool.js';
import { FUNCTION_TOOL_PARAMETERS } from '../../src/tools/function-tool.js';
import { builtinTools, toolSearch } from '../../src/tools/index.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { canonicalJson } from '../../src/protocol/canonical-json.js';

/** A minimal contract for registry tests. */
function fakeTool(name: string, extra: Partial<ToolContract> = {}): ToolContract {
  return defineTool({
    name,
    description: `${name} does things.`,
    inputSchema: z.object({ value: z.string().describe('A value.') }).strict(),
    category: 'read',
    confirmation: 'none',
    isConcurrencySafe: () => true,
    pathParams: [],
    activity: () => ({ startToCloseTimeoutMs: 1000, maximumAttempts: 1 }),
    summarize: () => name,
    ...extra,
  }) as unknown as ToolContract;
}

const schemaNames = (schemas: { function: { name: string } }[]): string[] =>
  schemas.map((schema) => schema.function.name);

/** Contract names in the order the registry lists its schemas (by name), so a new built-in tool edits no test. */
const builtinNames = (contracts: readonly { name: string }[]): string[] =>
  contracts.map((contract) => contract.name).sort();

// docs/tools.md §3 step 2, copied from docs/tools.md rather than from the contracts so that a missing alias fails here.
const ALIAS_TABLE: Record<string, string[]> = {
  ReadFile: ['Read', 'read', 'read_file', 'readfile', 'cat_file'],
  WriteFile: ['Write', 'write', 'write_file', 'create_file'],
  EditFile: ['Edit', 'edit', 'replace', 'str_replace', 'edit_file', 'MultiEdit'],
  Glob: ['glob', 'find_files'],
  Grep: ['grep', 'grep_search', 'search_code', 'search'],
  Bash: ['bash', 'shell', 'run_shell_command', 'run_command'],
};

describe('register', () => {
  it('holds the six built-ins, sorted by name', () => {
    const registry = createToolRegistry(builtinTools);
    expect(registry.list().map((contract) => contract.name)).toEqual([
      'Bash',
      'EditFile',
      'Glob',
      'Grep',
      'ReadFile',
      'WriteFile',
    ]);
  });

  it('throws on a duplicate name instead of overwriting', () => {
    const registry = createToolRegistry(builtinTools);
    const original = registry.get('Glob');
    expect(() => registry.register(fakeTool('Glob'))).toThrow(/already registered/);
    expect(registry.get('Glob')).toBe(original);
  });

  it('throws on a name that differs from a registered one only in case', () => {
    const registry = createToolRegistry(builtinTools);
    expect(() => registry.register(fakeTool('readfile'))).toThrow(/clashes with the registered tool 'ReadFile'/);
    expect(registry.get('readfile')).toBeUndefined();
  });

  it.each(['', '1Tool', '_tool', 'has space', 'dotted.name', 'ümlaut', 'a'.repeat(65), 'toolé'])(
    'rejects the name %j',
    (name) => {
      const registry = createToolRegistry();
      expect(() => registry.register(fakeTool(name))).toThrow(/Invalid tool name/);
      expect(registry.list()).toEqual([]);
    },
  );

  it('accepts names up to 64 characters with digits, "_" and "-"', () => {
    const registry = createToolRegistry();
    const longest = `A${'b'.repeat(63)}`;
    registry.register(fakeTool(longest));
    registry.register(fakeTool('x9_y-z'));
    expect(registry.get(longest)?.name).toBe(longest);
    expect(registry.get('x9_y-z')?.name).toBe('x9_y-z');
  });

  it('throws when a new alias is already an alias of another tool', () => {
    const registry = createToolRegistry(builtinTools);
    expect(() => registry.register(fakeTool('Finder', { aliases: ['FIND_FILES'] }))).toThrow(
      /already an alias of 'Glob'/,
    );
    expect(registry.get('Finder')).toBeUndefined();
  });

  it('rejects a schema that is not an object, at registration', () => {
    const registry = createToolRegistry();
    const scalar = fakeTool('Scalar', { inputSchema: z.string() as unknown as ToolContract['inputSchema'] });
    expect(() => registry.register(scalar)).toThrow(/must be a z\.object/);
  });

  it('rejects a schema strict mode cannot express (an open record), at registration', () => {
    const registry = createToolRegistry();
    const open = fakeTool('Open', {
      inputSchema: z
        .object({ env: z.record(z.string(), z.string()) })
        .strict() as unknown as ToolContract['inputSchema'],
    });
    expect(() => registry.register(open)).toThrow(/strict mode cannot express/);
    expect(registry.get('Open')).toBeUndefined();
  });

  it('unregister removes the tool and its aliases, and reports unknown names', () => {
    const registry = createToolRegistry(builtinTools);
    expect(registry.unregister('Grep')).toBe(true);
    expect(registry.get('Grep')).toBeUndefined();
    expect(registry.resolveName('grep_search')).toBeUndefined();
    expect(registry.unregister('Grep')).toBe(false);
    // The name and its aliases are free again.
    registry.register(fakeTool('Grep', { aliases: ['search'] }));
    expect(registry.resolveName('search')?.name).toBe('Grep');
  });
});

describe('get', () => {
  it.each(['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf', 'prototype'])(
    'misses for the inherited property %s',
    (name) => {
      const registry = createToolRegistry(builtinTools);
      expect(registry.get(name)).toBeUndefined();
      expect(registry.resolveName(name)).toBeUndefined();
      expect(registry.isEnabled(name)).toBe(false);
    },
  );

  it('finds by exact name only', () => {
    const registry = createToolRegistry(builtinTools);
    expect(registry.get('ReadFile')?.name).toBe('ReadFile');
    expect(registry.get('readfile')).toBeUndefined();
    expect(registry.get('Read')).toBeUndefined();
  });
});

describe('resolveName', () => {
  const registry = createToolRegistry(builtinTools);

  it('returns an exact match with no repair', () => {
    for (const contract of builtinTools) expect(registry.resolveName(contract.name)).toEqual({ name: contract.name });
  });

  const aliasCases = Object.entries(ALIAS_TABLE).flatMap(([canonical, aliases]) =>
    aliases.map((alias) => [alias, canonical]),
  );
  it.each(aliasCases)('maps the alias %s to %s with a tool_name repair', (alias, canonical) => {
    expect(registry.resolveName(alias)).toEqual({
      name: canonical,
      repair: { stage: 'name', kind: 'tool_name', from: alias, to: canonical },
    });
  });

  it.each([
    ['readfile', 'ReadFile'],
    ['READFILE', 'ReadFile'],
    ['editFile', 'EditFile'],
    ['BASH', 'Bash'],
  ])('matches %s case-insensitively as %s', (raw, canonical) => {
    expect(registry.resolveName(raw)).toEqual({
      name: canonical,
      repair: { stage: 'name', kind: 'tool_name', from: raw, to: canonical },
    });
  });

  it('prefers a case-insensitive name over an alias', () => {
    const withSearch = createToolRegistry(builtinTools);
    withSearch.register(fakeTool('Search'));
    // "search" is an alias of Grep, but a registered tool spelled "Search" is the closer match.
    expect(withSearch.resolveName('search')?.name).toBe('Search');
    expect(withSearch.resolveName('grep_search')?.name).toBe('Grep');
  });

  it('matches aliases case-insensitively as a last resort', () => {
    expect(registry.resolveName('READ_FILE')).toEqual({
      name: 'ReadFile',
      repair: { stage: 'name', kind: 'tool_name', from: 'READ_FILE', to: 'ReadFile' },
    });
    expect(registry.resolveName('Run_Command')?.name).toBe('Bash');
  });

  it('strips whitespace and a "functions." namespace prefix', () => {
    expect(registry.resolveName('functions.ReadFile')).toEqual({
      name: 'ReadFile',
      repair: { stage: 'name', kind: 'tool_name', from: 'functions.ReadFile', to: 'ReadFile' },
    });
    expect(registry.resolveName(' Glob\n')?.name).toBe('Glob');
    expect(registry.resolveName('tools:read_file')?.name).toBe('ReadFile');
  });

  it('returns undefined for unknown and missing names', () => {
    expect(registry.resolveName('Delete')).toBeUndefined();
    expect(registry.resolveName(undefined)).toBeUndefined();
    expect(registry.resolveName('')).toBeUndefined();
    expect(registry.resolveName('functions.')).toBeUndefined();
  });

  it('treats a missing name as "unknown_tool"', () => {
    const withUnknown = createToolRegistry([fakeTool('unknown_tool')]);
    expect(withUnknown.resolveName(undefined)).toEqual({ name: 'unknown_tool' });
    expect(withUnknown.resolveName('')).toEqual({ name: 'unknown_tool' });
  });

  it('still resolves disabled and undiscovered deferred tools, so the caller can answer precisely', () => {
    const local = createToolRegistry([...builtinTools, fakeTool('WebFetch', { shouldDefer: true })]);
    local.disable('Bash');
    expect(local.resolveName('shell')?.name).toBe('Bash');
    expect(local.resolveName('WebFetch')).toEqual({ name: 'WebFetch' });
  });
});

describe('enable and disable', () => {
  it('omits a disabled tool from the schemas and lists it again once enabled', () => {
    const registry = createToolRegistry(builtinTools);
    registry.disable('Bash');
    expect(registry.isEnabled('Bash')).toBe(false);
    expect(schemaNames(registry.getSchemas({ mode: 'default' }))).toEqual([
      'EditFile',
      'Glob',
      'Grep',
      'ReadFile',
      'WriteFile',
    ]);
    expect(registry.get('Bash')?.name).toBe('Bash');
    registry.enable('Bash');
    expect(registry.isEnabled('Bash')).toBe(true);
    expect(schemaNames(registry.getSchemas({ mode: 'default' }))).toContain('Bash');
  });

  it('throws for unknown names', () => {
    const registry = createToolRegistry(builtinTools);
    expect(() => registry.disable('Nope')).toThrow(/Unknown tool 'Nope'/);
    expect(() => registry.enable('toString')).toThrow(/Unknown tool/);
  });

  it('forgets the disabled state when a tool is unregistered', () => {
    const registry = createToolRegistry(builtinTools);
    registry.disable('Glob');
    const glob = registry.get('Glob')!;
    registry.unregister('Glob');
    registry.register(glob);
    expect(registry.isEnabled('Glob')).toBe(true);
  });
});

describe('getSchemas', () => {
  it('lists every enabled tool in default mode as a strict Chat Completions function', () => {
    const registry = createToolRegistry(builtinTools);
    const schemas = registry.getSchemas({ mode: 'default' });
    expect(schemaNames(schemas)).toEqual(builtinTools.map((tool) => tool.name).sort());
    for (const schema of schemas) {
      expect(schema.type).toBe('function');
      expect(schema.function.strict).toBe(true);
      expect(schema.function.parameters.additionalProperties).toBe(false);
    }
  });

  it('keeps only read tools in read_only mode', () => {
    const registry = createToolRegistry(builtinTools);
    const readTools = builtinNames(builtinTools.filter((contract) => contract.category === 'read'));
    expect(readTools).toEqual(expect.arrayContaining(['Glob', 'Grep', 'ReadFile']));
    expect(schemaNames(registry.getSchemas({ mode: 'read_only' }))).toEqual(readTools);
  });

  it('omits tools whose breaker is OPEN and keeps the others', () => {
    const registry = createToolRegistry(builtinTools);
    const schemas = registry.getSchemas({ mode: 'default', openTools: new Set(['Grep', 'Bash']) });
    const others = builtinNames(builtinTools.filter((contract) => !['Grep', 'Bash'].includes(contract.name)));
    expect(others).toEqual(expect.arrayContaining(['EditFile', 'Glob', 'ReadFile', 'WriteFile']));
    expect(schemaNames(schemas)).toEqual(others);
  });

  it('hides deferred tools until they are discovered', () => {
    const registry = createToolRegistry([
      ...builtinTools,
      toolSearch as unknown as ToolContract,
      fakeTool('WebFetch', { shouldDefer: true }),
    ]);
    expect(schemaNames(registry.getSchemas({ mode: 'default' }))).not.toContain('WebFetch');
    expect(schemaNames(registry.getSchemas({ mode: 'default', discovered: new Set(['Other']) }))).not.toContain(
      'WebFetch',
    );
    expect(schemaNames(registry.getSchemas({ mode: 'default', discovered: new Set(['WebFetch']) }))).toContain(
      'WebFetch',
    );
  });

  it('lists ToolSearch only while there are deferred tools it could find', () => {
    const registry = createToolRegistry([...builtinTools, toolSearch as unknown as ToolContract]);
    expect(schemaNames(registry.getSchemas({ mode: 'default' }))).not.toContain('ToolSearch');
    registry.register(fakeTool('WebFetch', { shouldDefer: true, category: 'command' }));
    expect(schemaNames(registry.getSchemas({ mode: 'default' }))).toContain('ToolSearch');
    // In read_only mode the only deferred tool is not allowed, so there is nothing to search for.
    const readTools = builtinNames(builtinTools.filter((contract) => contract.category === 'read'));
    expect(readTools).toEqual(expect.arrayContaining(['Glob', 'Grep', 'ReadFile']));
    expect(schemaNames(registry.getSchemas({ mode: 'read_only' }))).toEqual(readTools);
    registry.disable('WebFetch');
    expect(schemaNames(registry.getSchemas({ mode: 'default' }))).not.toContain('ToolSearch');
  });

  it('sorts by name in code-unit order whatever the registration order', () => {
    const registry = createToolRegistry([...builtinTools].reverse());
    registry.register(fakeTool('alpha'));
    registry.register(fakeTool('Zeta'));
    registry.register(fakeTool('Beta_2'));
    expect(schemaNames(registry.getSchemas({ mode: 'default' }))).toEqual([
      'Bash',
      'Beta_2',
      'EditFile',
      'Glob',
      'Grep',
      'ReadFile',
      'WriteFile',
      'Zeta',
      'alpha',
    ]);
  });

  it('returns fresh objects, so a caller mutating one cannot change the next turn', () => {
    const registry = createToolRegistry(builtinTools);
    const first = registry.getSchemas({ mode: 'default' });
    (first[0]!.function.parameters.properties as Record<string, unknown>).injected = { type: 'string' };
    const second = registry.getSchemas({ mode: 'default' });
    expect(second[0]!.function.parameters.properties).not.toHaveProperty('injected');
  });
});

describe('registerFunction', () => {
  it('creates a command tool with exactly the §12 schema and no risk by default', () => {
    const registry = createToolRegistry(builtinTools);
    const contract = registry.registerFunction({ name: 'deploy', description: 'Deploy the service.' });
    expect(contract.category).toBe('command');
    expect(contract.origin).toBe('function');
    expect(contract.risk).toBeUndefined();
    expect(contract.isConcurrencySafe({ input: 'x' })).toBe(false);
    expect(contract.pathParams).toEqual([]);
    const schema = registry.getSchemas({ mode: 'default' }).find((entry) => entry.function.name === 'deploy')!;
    expect(JSON.stringify(schema.function.parameters)).toBe(
      '{"type":"object","properties":{"input":{"type":"string","description":"raw input string"}},"required":["input"],"additionalProperties":false}',
    );
    expect(schema.function.parameters).toEqual(FUNCTION_TOOL_PARAMETERS);
    expect(contract.inputSchema.safeParse({ input: 'x', extra: 1 }).success).toBe(false);
  });

  it('stores the declared risk for the permission layer', () => {
    const registry = createToolRegistry();
    expect(registry.registerFunction({ name: 'post', description: 'Post.', risk: 'network_write' }).risk).toBe(
      'network_write',
    );
    expect(registry.registerFunction({ name: 'wipe', description: 'Wipe.', risk: 'destructive' }).risk).toBe(
      'destructive',
    );
  });

  it('appears in read_only mode only when its risk is read_only', () => {
    const registry = createToolRegistry(builtinTools);
    const lookup = registry.registerFunction({
      name: 'lookup',
      description: 'Look up.',
      risk: 'read_only',
      concurrencySafe: true,
    });
    registry.registerFunction({ name: 'save', description: 'Save.', risk: 'write' });
    registry.registerFunction({ name: 'unrated', description: 'No risk declared.' });
    expect(lookup.category).toBe('read');
    expect(lookup.isConcurrencySafe({ input: '' })).toBe(true);
    expect(schemaNames(registry.getSchemas({ mode: 'read_only' }))).toEqual(['Glob', 'Grep', 'ReadFile', 'lookup']);
    expect(schemaNames(registry.getSchemas({ mode: 'default' }))).toEqual(
      expect.arrayContaining(['lookup', 'save', 'unrated']),
    );
  });

  it('retries read-only functions and runs others at most once', () => {
    const registry = createToolRegistry();
    expect(
      registry.registerFunction({ name: 'a', description: 'A.', risk: 'read_only' }).activity({ input: '' })
        .maximumAttempts,
    ).toBe(3);
    expect(
      registry.registerFunction({ name: 'b', description: 'B.', risk: 'write' }).activity({ input: '' })
        .maximumAttempts,
    ).toBe(1);
    const custom = registry.registerFunction({
      name: 'c',
      description: 'C.',
      activity: { startToCloseTimeoutMs: 5000, maximumAttempts: 2 },
    });
    expect(custom.activity({ input: '' })).toEqual({ startToCloseTimeoutMs: 5000, maximumAttempts: 2 });
  });

  it('validates the name and the risk', () => {
    const registry = createToolRegistry(builtinTools);
    expect(() => registry.registerFunction({ name: 'bad name', description: 'x' })).toThrow(/Invalid tool name/);
    expect(() => registry.registerFunction({ name: 'Glob', description: 'x' })).toThrow(/already registered/);
    expect(() => registry.registerFunction({ name: 'risky', description: 'x', risk: 'forbidden' as never })).toThrow(
      /unknown risk/,
    );
    expect(registry.get('risky')).toBeUndefined();
  });
});

describe('fingerprint', () => {
  it('is the sha256 of the canonical JSON of getSchemas', () => {
    const registry = createToolRegistry(builtinTools);
    const context = { mode: 'default' } as const;
    const expected = createHash('sha256')
      .update(canonicalJson(registry.getSchemas(context)), 'utf8')
      .digest('hex');
    expect(registry.fingerprint(context)).toBe(expected);
    expect(registry.fingerprint(context)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is stable across calls and registration orders', () => {
    const first = createToolRegistry(builtinTools);
    const second = createToolRegistry([...builtinTools].reverse());
    expect(first.fingerprint({ mode: 'default' })).toBe(first.fingerprint({ mode: 'default' }));
    expect(first.fingerprint({ mode: 'default' })).toBe(second.fingerprint({ mode: 'default' }));
  });

  it('changes when a tool is disabled, and comes back when it is enabled', () => {
    const registry = createToolRegistry(builtinTools);
    const before = registry.fingerprint({ mode: 'default' });
    registry.disable('WriteFile');
    const disabled = registry.fingerprint({ mode: 'default' });
    expect(disabled).not.toBe(before);
    registry.enable('WriteFile');
    expect(registry.fingerprint({ mode: 'default' })).toBe(before);
  });

  it('differs between modes and with an OPEN breaker', () => {
    const registry = createToolRegistry(builtinTools);
    const base = registry.fingerprint({ mode: 'default' });
    expect(registry.fingerprint({ mode: 'read_only' })).not.toBe(base);
    expect(registry.fingerprint({ mode: 'default', openTools: new Set(['Bash']) })).not.toBe(base);
    expect(registry.fingerprint({ mode: 'default', openTools: new Set(['NotATool']) })).toBe(base);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('drops undefined properties as JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: [undefined] })).toBe('{"b":[null]}');
  });
});
