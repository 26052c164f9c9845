import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fixArguments, inputJsonSchema, parseArguments, RESERVED_KEYS } from '../../../src/core/arguments/index.js';
import type { FixResult } from '../../../src/core/arguments/index.js';
import type { Repair } from '../../../src/protocol/envelope.js';
import type { ToolContract } from '../../../src/tools/define-tool.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { builtinTools } from '../../../src/tools/index.js';

type Fixed = Extract<FixResult, { ok: true }>;
type Refused = Extract<FixResult, { ok: false }>;

function tool(name: string): ToolContract {
  const contract = builtinTools.find((candidate) => candidate.name === name);
  if (!contract) throw new Error(`no built-in tool ${name}`);
  return contract;
}

function fixed(name: string | ToolContract, value: Record<string, unknown>): Fixed {
  const result = fixArguments(typeof name === 'string' ? tool(name) : name, value);
  if (!result.ok) throw new Error(`expected success, got ${result.message}`);
  return result;
}

function refused(name: string | ToolContract, value: Record<string, unknown>): Refused {
  const result = fixArguments(typeof name === 'string' ? tool(name) : name, value);
  if (result.ok) throw new Error(`expected INVALID_PARAM, got ${JSON.stringify(result.input)}`);
  expect(result.code).toBe('INVALID_PARAM');
  return result;
}

// The required arguments of each built-in, so one parameter can be varied at a time.
const BASE: Readonly<Record<string, Record<string, unknown>>> = {
  Bash: { command: 'ls' },
  EditFile: { path: 'a.txt', old_string: 'a', new_string: 'b' },
  Glob: { pattern: '*.ts' },
  Grep: { pattern: 'TODO' },
  ReadFile: { path: 'a.txt' },
  WriteFile: { path: 'a.txt', content: 'hello' },
};

// A valid, non-default value for each canonical parameter an alias can target.
const SAMPLE: Readonly<Record<string, unknown>> = {
  path: 'src/main.ts',
  offset: 3,
  content: 'new content',
  old_string: 'before',
  new_string: 'after',
  replace_all: true,
  pattern: 'needle',
  glob: '*.md',
  limit: 7,
  command: 'echo hi',
  cwd: 'sub',
  timeout_ms: 5000,
};

const without = (record: Record<string, unknown>, key: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).filter(([name]) => name !== key));

// A contract for the rows of the coercion table no built-in declares (number, object, array of strings).
const probe = defineTool({
  name: 'Probe',
  description: 'Test contract covering every declared type of the docs/tools.md §7 coercion table.',
  inputSchema: z
    .object({
      ratio: z.number().optional(),
      options: z.object({ depth: z.number().int().optional() }).strict().optional(),
      tags: z.array(z.string()).optional(),
      note: z.string().optional(),
      maybe: z.string().nullable().optional(),
    })
    .strict(),
  category: 'read',
  confirmation: 'none',
  isConcurrencySafe: () => true,
  pathParams: [],
  activity: () => ({ startToCloseTimeoutMs: 1000, maximumAttempts: 1 }),
  summarize: () => 'Probe',
}) as unknown as ToolContract;

describe('§7 step 3: the coercion table, row by row', () => {
  const coerce = (param: string, from: string, to: string): Repair => ({
    stage: 'coerce',
    kind: 'coerce',
    param,
    from,
    to,
  });

  it.each([
    // integer ← string matching ^\s*[+-]?\d+(\.0+)?\s*$
    ['ReadFile', 'limit', '10', 10, [coerce('limit', 'string', 'integer')]],
    ['ReadFile', 'limit', ' +7 ', 7, [coerce('limit', 'string', 'integer')]],
    ['ReadFile', 'limit', '4.00', 4, [coerce('limit', 'string', 'integer')]],
    ['Grep', 'context', '0', 0, [coerce('context', 'string', 'integer')]],
    // integer ← integer number: kept
    ['ReadFile', 'limit', 10, 10, []],
    ['ReadFile', 'limit', 10.0, 10, []],
    // number ← numeric string
    [probe, 'ratio', '2.5', 2.5, [coerce('ratio', 'string', 'number')]],
    [probe, 'ratio', ' -.5e1 ', -5, [coerce('ratio', 'string', 'number')]],
    [probe, 'ratio', '3.', 3, [coerce('ratio', 'string', 'number')]],
    [probe, 'ratio', 0.25, 0.25, []],
    // boolean ← words and 0/1
    ...(['true', '1', 'yes', 'y', 'on', ' YES ', 'On'] as const).map(
      (word) => ['Grep', 'fixed_strings', word, true, [coerce('fixed_strings', 'string', 'boolean')]] as const,
    ),
    ...(['false', '0', 'no', 'n', 'off', 'No', ' OFF '] as const).map(
      (word) => ['Grep', 'case_sensitive', word, false, [coerce('case_sensitive', 'string', 'boolean')]] as const,
    ),
    ['Glob', 'include_hidden', 1, true, [coerce('include_hidden', 'integer', 'boolean')]],
    ['Glob', 'include_hidden', 0, false, [coerce('include_hidden', 'integer', 'boolean')]],
    ['Glob', 'include_hidden', true, true, []],
    // string ← number or boolean
    ['Bash', 'description', 42, '42', [coerce('description', 'integer', 'string')]],
    ['Bash', 'description', 1.5, '1.5', [coerce('description', 'number', 'string')]],
    ['Bash', 'description', false, 'false', [coerce('description', 'boolean', 'string')]],
    // array ← JSON string of an array
    [probe, 'tags', '["a", "b"]', ['a', 'b'], [{ stage: 'coerce', kind: 'string_to_array', param: 'tags' }]],
    [probe, 'tags', "['a', 'b',]", ['a', 'b'], [{ stage: 'coerce', kind: 'string_to_array', param: 'tags' }]],
    // array ← a single element of the item type; never split on commas
    [probe, 'tags', 'a,b', ['a,b'], [{ stage: 'coerce', kind: 'wrapped_in_array', param: 'tags' }]],
    // object ← JSON string of an object
    [probe, 'options', '{"depth": 2}', { depth: 2 }, [{ stage: 'coerce', kind: 'string_to_object', param: 'options' }]],
  ] as const)('%s.%s: %j → %j', (contract, param, given, expected, repairs) => {
    const base = typeof contract === 'string' ? BASE[contract] : {};
    const result = fixed(contract, { ...base, [param]: given });
    expect(result.input[param]).toEqual(expected);
    expect(result.normalized[param]).toEqual(expected);
    expect(result.repairs).toEqual(repairs);
  });

  it.each([
    ['ReadFile', 'limit', 2.5, 'integer'],
    ['ReadFile', 'limit', '2.5', 'integer'],
    ['ReadFile', 'limit', '10abc', 'integer'],
    ['ReadFile', 'limit', true, 'integer'],
    ['ReadFile', 'offset', '', 'integer'],
    [probe, 'ratio', '1,5', 'number'],
    [probe, 'ratio', false, 'number'],
    ['Grep', 'case_sensitive', 'maybe', 'boolean'],
    ['Grep', 'case_sensitive', 2, 'boolean'],
    ['Grep', 'case_sensitive', [true], 'boolean'],
    ['Bash', 'command', ['ls', '-la'], 'string'],
    ['Bash', 'command', { run: 'ls' }, 'string'],
    [probe, 'tags', 5, 'array'],
    [probe, 'options', '[1, 2]', 'object'],
    [probe, 'options', 'depth=2', 'object'],
  ] as const)('%s.%s: %j is refused, never truncated or guessed', (contract, param, given, expected) => {
    const base = typeof contract === 'string' ? BASE[contract] : {};
    const result = refused(contract, { ...base, [param]: given });
    expect(result.details).toEqual({ reason: 'invalid_type', param, expected, got: given });
    const name = typeof contract === 'string' ? contract : contract.name;
    expect(result.message).toContain(`Invalid value for parameter '${param}' of ${name}: expected `);
    expect(result.message).toContain(JSON.stringify(given));
  });

  it('wraps one edit object in an array', () => {
    const edit = { old_string: 'a', new_string: 'b' };
    const result = fixed('EditFile', { path: 'a.txt', edits: edit });
    expect(result.input.edits).toEqual([{ ...edit, replace_all: false }]);
    expect(result.repairs).toEqual([{ stage: 'coerce', kind: 'wrapped_in_array', param: 'edits' }]);
  });

  it('parses a JSON string of edits into the array', () => {
    const edits = [
      { old_string: 'a', new_string: 'b' },
      { old_string: 'c', new_string: 'd', replace_all: true },
    ];
    const result = fixed('EditFile', { path: 'a.txt', edits: JSON.stringify(edits) });
    expect(result.normalized.edits).toEqual(edits);
    expect(result.repairs).toEqual([{ stage: 'coerce', kind: 'string_to_array', param: 'edits' }]);
  });

  it('parses a JSON string holding one edit object, then wraps it', () => {
    const result = fixed('EditFile', { path: 'a.txt', edits: '{"old_string": "a", "new_string": "b"}' });
    expect(result.normalized.edits).toEqual([{ old_string: 'a', new_string: 'b' }]);
    expect(result.repairs.map((repair) => repair.kind)).toEqual(['string_to_object', 'wrapped_in_array']);
  });

  it('reports every wrongly typed parameter at once', () => {
    const result = refused('Grep', { pattern: 'x', context: 1.5, case_sensitive: 'perhaps' });
    expect(result.details.problems).toEqual([
      { param: 'context', expected: 'integer', got: 1.5 },
      { param: 'case_sensitive', expected: 'boolean', got: 'perhaps' },
    ]);
    expect(result.message).toMatch(/'context'.*'case_sensitive'.*Re-issue the call with corrected values\.$/);
  });
});

describe('§7 step 1: aliases of every built-in tool', () => {
  const rows = builtinTools.flatMap((contract) =>
    (contract.parameterAliases ?? []).map((alias) => [contract.name, alias.from, alias.to] as const),
  );

  it('covers the alias table of §7', () => {
    expect(rows).toHaveLength(6 + 6 + 12 + 6 + 11 + 8);
  });

  it.each(rows)('%s: %s → %s when the canonical key is absent', (name, from, to) => {
    const result = fixed(name, { ...without(BASE[name] ?? {}, to), [from]: SAMPLE[to] });
    expect(result.input[to]).toEqual(SAMPLE[to]);
    expect(result.normalized).not.toHaveProperty(from);
    expect(result.repairs).toEqual([{ stage: 'alias', kind: 'alias', from, to }]);
    expect(result.ignoredParams).toEqual([]);
  });

  it.each(rows)('%s: %s is dropped and ignored when %s is also given', (name, from, to) => {
    const result = fixed(name, { ...BASE[name], [to]: SAMPLE[to], [from]: 'the other value' });
    expect(result.input[to]).toEqual(SAMPLE[to]);
    expect(result.ignoredParams).toEqual([from]);
    expect(result.repairs).toEqual([{ stage: 'drop', kind: 'dropped_unknown', param: from }]);
  });

  it('lets the first of two aliases for the same key win', () => {
    const result = fixed('ReadFile', { file_path: 'first.txt', filePath: 'second.txt' });
    expect(result.input.path).toBe('first.txt');
    expect(result.ignoredParams).toEqual(['filePath']);
  });

  it('applies aliases to the objects inside edits', () => {
    const result = fixed('EditFile', { path: 'a.txt', edits: [{ old_str: 'a', newString: 'b', all: 'yes' }] });
    expect(result.input.edits).toEqual([{ old_string: 'a', new_string: 'b', replace_all: true }]);
    expect(result.repairs).toEqual([
      { stage: 'alias', kind: 'alias', from: 'edits[0].old_str', to: 'edits[0].old_string' },
      { stage: 'alias', kind: 'alias', from: 'edits[0].newString', to: 'edits[0].new_string' },
      { stage: 'alias', kind: 'alias', from: 'edits[0].all', to: 'edits[0].replace_all' },
      { stage: 'coerce', kind: 'coerce', param: 'edits[0].replace_all', from: 'string', to: 'boolean' },
    ]);
  });

  it('an alias also replaces a canonical key sent as null', () => {
    const result = fixed('ReadFile', { path: null, file_path: 'a.txt' });
    expect(result.input.path).toBe('a.txt');
  });
});

describe('§7 step 1: the special aliases', () => {
  const alias = (from: string, to: string): Repair => ({ stage: 'alias', kind: 'alias', from, to });

  it.each([
    [{ path: 'a.txt', offset: 10, end_line: 20 }, 10, 11],
    [{ path: 'a.txt', end_line: 20 }, 1, 20],
    [{ path: 'a.txt', offset: '5', end_line: '5' }, 5, 1],
    [{ path: 'a.txt', start_line: 3, end_line: 4 }, 3, 2],
  ])('ReadFile end_line → limit = end_line - offset + 1: %j', (given, offset, limit) => {
    const result = fixed('ReadFile', given);
    expect(result.input).toMatchObject({ offset, limit });
    expect(result.repairs).toContainEqual(alias('end_line', 'limit'));
  });

  it('ReadFile end_line before offset is out of range, not clamped', () => {
    const result = refused('ReadFile', { path: 'a.txt', offset: 10, end_line: 5 });
    expect(result.details).toEqual({ reason: 'out_of_range', param: 'limit', min: 1, max: 2000, got: -4 });
  });

  it('ReadFile end_line is ignored when limit is given', () => {
    const result = fixed('ReadFile', { path: 'a.txt', limit: 3, end_line: 50 });
    expect(result.input.limit).toBe(3);
    expect(result.ignoredParams).toEqual(['end_line']);
  });

  it('ReadFile end_line must be an integer', () => {
    const result = refused('ReadFile', { path: 'a.txt', end_line: 'last' });
    expect(result.details).toMatchObject({ reason: 'invalid_type', param: 'end_line', expected: 'integer' });
  });

  it.each([
    ['ignore_case', true, false],
    ['ignore_case', false, true],
    ['ignore_case', 'yes', false],
    ['-i', true, false],
    ['-i', 0, true],
  ])('Grep %s=%j → case_sensitive=%j', (from, given, expected) => {
    const result = fixed('Grep', { pattern: 'x', [from]: given });
    expect(result.input.case_sensitive).toBe(expected);
    expect(result.repairs).toEqual([alias(from, 'case_sensitive')]);
  });

  it('Grep ignore_case is ignored when case_sensitive is given', () => {
    const result = fixed('Grep', { pattern: 'x', case_sensitive: true, ignore_case: true });
    expect(result.input.case_sensitive).toBe(true);
    expect(result.ignoredParams).toEqual(['ignore_case']);
  });

  it('Grep ignore_case must be a boolean', () => {
    expect(refused('Grep', { pattern: 'x', ignore_case: 'sometimes' }).details).toMatchObject({
      param: 'ignore_case',
      expected: 'boolean',
    });
  });
});

describe('§7 step 2: null handling', () => {
  it.each([null, undefined, 'null', 'undefined', 'None'])('drops %j on an optional non-string property', (given) => {
    for (const [name, param] of [
      ['ReadFile', 'limit'],
      ['Grep', 'case_sensitive'],
      ['Grep', 'output_mode'],
    ] as const) {
      const result = fixed(name, { ...BASE[name], [param]: given });
      expect(result.normalized).not.toHaveProperty(param);
      // JSON null is strict mode's "absent" and is dropped silently; anything else is a recorded repair.
      expect(result.repairs).toEqual(given === null ? [] : [{ stage: 'drop', kind: 'dropped_null', param }]);
    }
  });

  it.each([null, undefined])('drops %j on an optional string property', (given) => {
    const result = fixed('Grep', { pattern: 'x', glob: given });
    expect(result.input).not.toHaveProperty('glob');
    expect(result.repairs).toEqual(given === null ? [] : [{ stage: 'drop', kind: 'dropped_null', param: 'glob' }]);
  });

  it('keeps the words null/None where a string is a legitimate value (replacing Python None)', () => {
    const result = fixed('EditFile', { path: 'a.py', old_string: 'None', new_string: 'null' });
    expect(result.input).toMatchObject({ old_string: 'None', new_string: 'null' });
    expect(result.repairs).toEqual([]);
  });

  it('keeps null where the schema allows null', () => {
    expect(fixed(probe, { maybe: null }).input).toEqual({ maybe: null });
  });

  it.each([null, undefined])('treats a required property given as %j as missing', (given) => {
    const result = refused('ReadFile', { path: given });
    expect(result.details).toEqual({ reason: 'missing_required', missing: ['path'] });
  });

  it('keeps the string "null" as the content of a file', () => {
    expect(fixed('WriteFile', { path: 'a.json', content: 'null' }).input.content).toBe('null');
  });
});

describe('§7 step 4: unknown and reserved keys', () => {
  it('removes unknown keys and lists them in ignored_params', () => {
    const result = fixed('Glob', { pattern: '*.ts', recursive: true, output_mode: 'content' });
    expect(result.input).not.toHaveProperty('recursive');
    expect(result.ignoredParams).toEqual(['recursive', 'output_mode']);
    expect(result.repairs).toEqual([
      { stage: 'drop', kind: 'dropped_unknown', param: 'recursive' },
      { stage: 'drop', kind: 'dropped_unknown', param: 'output_mode' },
    ]);
  });

  it('removes unknown keys inside edits items', () => {
    const result = fixed('EditFile', { path: 'a.txt', edits: [{ old_string: 'a', new_string: 'b', line: 3 }] });
    expect(result.ignoredParams).toEqual(['edits[0].line']);
  });

  it('never lets __proto__ or inherited names through', () => {
    const value = JSON.parse('{"pattern": "x", "__proto__": {"polluted": true}, "toString": "y"}') as Record<
      string,
      unknown
    >;
    const result = fixed('Glob', value);
    expect(result.ignoredParams).toEqual(['__proto__', 'toString']);
    expect(Object.getPrototypeOf(result.normalized)).toBe(Object.prototype);
    expect((result.normalized as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it.each([...RESERVED_KEYS])('always removes the reserved key %s', (key) => {
    const result = fixed('WriteFile', { ...BASE.WriteFile, [key]: 1 });
    expect(result.input).not.toHaveProperty(key);
    expect(result.repairs).toEqual([{ stage: 'drop', kind: 'dropped_reserved', param: key }]);
    expect(result.ignoredParams).toEqual([]);
  });

  it('removes reserved keys inside edits items too', () => {
    const result = fixed('EditFile', {
      path: 'a.txt',
      edits: [{ old_string: 'a', new_string: 'b', expected_sha256: 'f00' }],
    });
    expect(result.repairs).toEqual([{ stage: 'drop', kind: 'dropped_reserved', param: 'edits[0].expected_sha256' }]);
  });

  it('lists exactly the four reserved keys of §7', () => {
    expect([...RESERVED_KEYS].sort()).toEqual([
      'expected_mtime_ms',
      'expected_sha256',
      'expected_size_bytes',
      'file_mtime_ms',
    ]);
  });
});

describe('§7 step 5: validation', () => {
  it('asks for missing required parameters by name, never inventing them', () => {
    const result = refused('WriteFile', { filename: 'a.txt' });
    expect(result.details).toEqual({ reason: 'missing_required', missing: ['path', 'content'] });
    expect(result.message).toBe(
      'Missing required parameter(s) for WriteFile: path, content. Re-issue the call including them.',
    );
    expect(result.ignoredParams).toEqual(['filename']);
  });

  it('names missing parameters inside edits items', () => {
    const result = refused('EditFile', { path: 'a.txt', edits: [{ old_string: 'a' }] });
    expect(result.details).toEqual({ reason: 'missing_required', missing: ['edits[0].new_string'] });
  });

  it.each([
    ['ReadFile', 'limit', 5000, 1, 2000],
    ['ReadFile', 'limit', 0, 1, 2000],
    ['ReadFile', 'offset', 0, 1, null],
    ['Grep', 'context', 11, 0, 10],
    ['Glob', 'limit', 1001, 1, 1000],
    ['Bash', 'timeout_ms', 600001, 1, 600000],
  ] as const)('%s.%s=%j is out of range [%j, %j], with no clamping', (name, param, got, min, max) => {
    const result = refused(name, { ...BASE[name], [param]: got });
    expect(result.details).toEqual({ reason: 'out_of_range', param, min, max, got });
    expect(result.message).toContain(`Parameter '${param}' of ${name} is out of range: got ${got}`);
  });

  it('an out-of-range value given as text is coerced, then refused', () => {
    const result = refused('ReadFile', { path: 'a.txt', limit: '5000' });
    expect(result.details).toMatchObject({ reason: 'out_of_range', got: 5000 });
    expect(result.repairs).toEqual([
      { stage: 'coerce', kind: 'coerce', param: 'limit', from: 'string', to: 'integer' },
    ]);
  });

  it.each([
    ['Grep', { pattern: 'x', output_mode: 'lines' }, 'output_mode'],
    ['ReadFile', { path: '' }, 'path'],
    ['Bash', { command: 'x'.repeat(10_001) }, 'command'],
    ['EditFile', { path: 'a.txt', edits: [] }, 'edits'],
  ] as const)('%s: other violations name the parameter (%s)', (name, value, param) => {
    const result = refused(name, value);
    expect(result.details).toMatchObject({ reason: 'schema_violation', param });
    expect(result.message).toMatch(new RegExp(`^Invalid value for parameter '${param}' of ${name}: .+\\. Re-issue`));
  });

  it('returns validated input with defaults, and the normalized arguments without them', () => {
    const result = fixed('Grep', { query: 'TODO', max_results: '20' });
    expect(result.normalized).toEqual({ pattern: 'TODO', limit: 20 });
    expect(result.input).toEqual({
      pattern: 'TODO',
      path: '.',
      case_sensitive: false,
      fixed_strings: false,
      output_mode: 'content',
      context: 0,
      limit: 20,
    });
  });

  it('leaves a clean call untouched', () => {
    const result = fixed('ReadFile', { path: 'a.txt', offset: 2, limit: 3 });
    expect(result.repairs).toEqual([]);
    expect(result.ignoredParams).toEqual([]);
    expect(result.normalized).toEqual({ path: 'a.txt', offset: 2, limit: 3 });
  });

  it('keeps repairs made before a failure', () => {
    const result = refused('ReadFile', { file_path: 'a.txt', limit: 'lots' });
    expect(result.repairs).toEqual([{ stage: 'alias', kind: 'alias', from: 'file_path', to: 'path' }]);
  });
});

describe('§6 and §7 together', () => {
  it('repairs a messy model call end to end', () => {
    const raw =
      "```json\n{file: 'src/a.ts', startLine: '10', end_line: 19, expected_mtime_ms: 1, encoding: None,}\n```";
    const parsedArguments = parseArguments(raw, { toolName: 'ReadFile' });
    expect(parsedArguments.ok).toBe(true);
    if (!parsedArguments.ok) return;
    const result = fixed('ReadFile', parsedArguments.value);
    expect(result.input).toEqual({ path: 'src/a.ts', offset: 10, limit: 10 });
    expect(result.ignoredParams).toEqual(['encoding']);
    expect(result.repairs.map((repair) => `${repair.stage}:${repair.kind}`)).toEqual([
      'alias:alias',
      'alias:alias',
      'alias:alias',
      'coerce:coerce',
      'drop:dropped_reserved',
      'drop:dropped_unknown',
    ]);
  });
});

describe('the JSON Schema behind the repairs', () => {
  it('is derived once per schema', () => {
    const schema = tool('ReadFile').inputSchema;
    expect(inputJsonSchema(schema)).toBe(inputJsonSchema(schema));
  });

  it('is the input-side schema, with defaulted properties optional', () => {
    expect(inputJsonSchema(tool('Grep').inputSchema).required).toEqual(['pattern']);
  });
});
