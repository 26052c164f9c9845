import { describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_BYTES, parseArguments, parseJsonAs } from '../../../src/core/arguments/index.js';
import { MAX_ARGUMENT_NESTING } from '../../../src/core/arguments/parse-arguments.js';
import type { ParseResult } from '../../../src/core/arguments/index.js';

type Success = Extract<ParseResult, { ok: true }>;
type Failure = Extract<ParseResult, { ok: false }>;

function parsed(raw: unknown, options?: Parameters<typeof parseArguments>[1]): Success {
  const result = parseArguments(raw, options);
  if (!result.ok) throw new Error(`expected success, got ${result.message}`);
  return result;
}

function failed(raw: unknown, options?: Parameters<typeof parseArguments>[1]): Failure {
  const result = parseArguments(raw, options);
  if (result.ok) throw new Error(`expected failure, got ${JSON.stringify(result.value)}`);
  return result;
}

const kinds = (result: Success): string[] => result.repairs.map((repair) => repair.kind);

describe('docs/tools.md §6 pre-checks', () => {
  it('uses a plain object as a shallow copy', () => {
    const raw = { path: 'a.txt', nested: { x: 1 } };
    const result = parsed(raw);
    expect(result.value).toEqual(raw);
    expect(result.value).not.toBe(raw);
    expect(result.value.nested).toBe(raw.nested);
    expect(result.repairs).toEqual([]);
  });

  it.each([null, undefined])('treats %s as no arguments', (raw) => {
    expect(parsed(raw)).toEqual({ ok: true, value: {}, repairs: [] });
  });

  it.each([
    [['a.txt'], 'array'],
    [42, 'integer'],
    [1.5, 'number'],
    [true, 'boolean'],
  ])('refuses %j as arguments_not_object', (raw, got) => {
    const result = failed(raw, { toolName: 'ReadFile' });
    expect(result.reason).toBe('arguments_not_object');
    expect(result.details).toMatchObject({ reason: 'arguments_not_object', got });
    expect(result.message).toContain('Arguments for ReadFile must be a JSON object');
  });

  it('refuses class instances, which are not plain objects', () => {
    expect(failed(new Date(0)).reason).toBe('arguments_not_object');
  });

  it('refuses a string over 8 MiB as too_large, counting UTF-8 bytes', () => {
    const ascii = failed('x'.repeat(MAX_ARGUMENT_BYTES + 1));
    expect(ascii.reason).toBe('too_large');
    expect(ascii.details).toMatchObject({ reason: 'too_large', size_bytes: MAX_ARGUMENT_BYTES + 1 });
    expect((ascii.details.raw_preview as string).length).toBe(200);
    // Half as many characters, but each é is two bytes.
    const accented = failed(`{"content":"${'é'.repeat(MAX_ARGUMENT_BYTES / 2)}"}`);
    expect(accented.reason).toBe('too_large');
  });

  it('refuses arguments nested past the limit as too_deep, however they were encoded, and keeps those at the limit', () => {
    const nested = (depth: number) => `{"path":"a","x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(parsed(nested(MAX_ARGUMENT_NESTING)).value.path).toBe('a');
    // 200,000 levels overflowed the recursive walks after parsing; now nothing past the limit gets that far.
    for (const raw of [nested(MAX_ARGUMENT_NESTING + 1), nested(200_000), JSON.stringify(nested(200_000))]) {
      const result = failed(raw);
      expect(result.reason).toBe('too_deep');
      expect(result.details).toMatchObject({ reason: 'too_deep', limit: MAX_ARGUMENT_NESTING });
    }
    expect(failed(`{"a":${nested(100_000).slice(0, -1)}`).reason).toBe('too_deep');
  });

  it('accepts arguments of exactly 8 MiB', () => {
    const wrapper = '{"content":""}';
    const raw = `{"content":"${'x'.repeat(MAX_ARGUMENT_BYTES - wrapper.length)}"}`;
    expect(raw.length).toBe(MAX_ARGUMENT_BYTES);
    expect((parsed(raw).value.content as string).length).toBe(MAX_ARGUMENT_BYTES - wrapper.length);
  });

  it('strips a BOM and surrounding whitespace', () => {
    expect(parsed('\uFEFF  {"path":"a"}\n ')).toEqual({ ok: true, value: { path: 'a' }, repairs: [] });
  });

  it.each(['', '   ', '\uFEFF', '\n\t'])('treats the empty string %j as no arguments', (raw) => {
    expect(parsed(raw)).toEqual({ ok: true, value: {}, repairs: [] });
  });

  it('treats the JSON literal null as no arguments', () => {
    expect(parsed('null').value).toEqual({});
  });
});

describe('§6 strategies', () => {
  it('S1: strict JSON needs no repair', () => {
    expect(parsed('{"path": "a.txt", "limit": 10}')).toEqual({
      ok: true,
      value: { path: 'a.txt', limit: 10 },
      repairs: [],
    });
  });

  it.each(['```json\n{"path": "a.txt"}\n```', '```\n{"path": "a.txt"}\n```', '```JSON {"path": "a.txt"}```'])(
    'S2: unwraps the code fence %j',
    (raw) => {
      const result = parsed(raw);
      expect(result.value).toEqual({ path: 'a.txt' });
      expect(result.repairs).toEqual([{ stage: 'parse', kind: 'code_fence' }]);
    },
  );

  it('S2 then S4: a fenced argument string with a trailing comma', () => {
    const result = parsed('```json\n{"path": "a.txt",}\n```');
    expect(result.value).toEqual({ path: 'a.txt' });
    expect(kinds(result)).toEqual(['code_fence', 'trailing_comma']);
  });

  it.each([
    ['prose before and after', 'Here are the arguments: {"path": "a.txt"} Hope that helps!'],
    ['extra closing braces', '{"path": "a.txt"}}}'],
    ['braces inside strings do not end the object', 'call: {"pattern": "}{", "path": "x"} done'],
  ])('S3: extracts the object (%s)', (_label, raw) => {
    const result = parsed(raw);
    expect(result.repairs).toEqual([{ stage: 'parse', kind: 'extracted_object' }]);
    expect(result.value.path).toBeDefined();
  });

  it('S3 keeps a brace inside a string as content', () => {
    expect(parsed('ok {"pattern": "}{"}').value).toEqual({ pattern: '}{' });
  });

  it("S4 single_quotes: converts the quotes, escaping inner double quotes and unescaping \\'", () => {
    const result = parsed(`{'command': 'echo "hi" it\\'s', "path": 'a.txt'}`);
    expect(result.value).toEqual({ command: `echo "hi" it's`, path: 'a.txt' });
    expect(result.repairs).toEqual([{ stage: 'parse', kind: 'single_quotes' }]);
  });

  it('S4 unquoted_keys: quotes bare identifier keys only', () => {
    const result = parsed('{path: "a.txt", max_count: 3, $ref: "r"}');
    expect(result.value).toEqual({ path: 'a.txt', max_count: 3, $ref: 'r' });
    expect(result.repairs).toEqual([{ stage: 'parse', kind: 'unquoted_keys' }]);
  });

  it.each([
    ['{"path": "a.txt",}', { path: 'a.txt' }],
    ['{"paths": ["a", "b",], }', { paths: ['a', 'b'] }],
    ['{"path": "a.txt", // done\n}', { path: 'a.txt' }],
  ])('S4 trailing_comma: %j', (raw, value) => {
    const result = parsed(raw);
    expect(result.value).toEqual(value);
    expect(kinds(result)).toContain('trailing_comma');
  });

  it('S4 python_literals: True/False/None/undefined/NaN/Infinity outside strings', () => {
    const result = parsed(
      '{"a": True, "b": False, "c": None, "d": undefined, "e": NaN, "f": Infinity, "g": -Infinity, "h": [None]}',
    );
    expect(result.value).toEqual({ a: true, b: false, c: null, d: null, e: null, f: null, g: null, h: [null] });
    expect(result.repairs).toEqual([{ stage: 'parse', kind: 'python_literals' }]);
  });

  it('S4 control_chars: escapes raw newlines, carriage returns and tabs inside strings', () => {
    const result = parsed('{"content": "line 1\nline 2\r\n\tindented"}');
    expect(result.value).toEqual({ content: 'line 1\nline 2\r\n\tindented' });
    expect(result.repairs).toEqual([{ stage: 'parse', kind: 'control_chars' }]);
  });

  it('S4 comments: removes // and /* */ outside strings', () => {
    const result = parsed('{\n  // the file\n  "path": "a.txt", /* the limit */ "limit": 10\n}');
    expect(result.value).toEqual({ path: 'a.txt', limit: 10 });
    expect(result.repairs).toEqual([{ stage: 'parse', kind: 'comments' }]);
  });

  it('S4 records several repairs in the documented order', () => {
    const result = parsed("{\n  // read it\n  path: 'a.txt',\n  'all': True,\n}");
    expect(result.value).toEqual({ path: 'a.txt', all: true });
    expect(kinds(result)).toEqual(['single_quotes', 'unquoted_keys', 'trailing_comma', 'python_literals', 'comments']);
  });

  it('S4 runs on the extracted slice and records both', () => {
    const result = parsed("Calling the tool: {'path': 'a.txt'} now.");
    expect(result.value).toEqual({ path: 'a.txt' });
    expect(kinds(result)).toEqual(['extracted_object', 'single_quotes']);
  });

  it.each([
    ['an open string', '{"path": "a.txt", "content": "hello wor', { path: 'a.txt', content: 'hello wor' }],
    ['a dangling comma', '{"path": "a.txt",', { path: 'a.txt' }],
    ['a key with a colon but no value', '{"path": "a.txt", "limit":', { path: 'a.txt' }],
    ['a key with no colon', '{"path": "a.txt", "limit"', { path: 'a.txt' }],
    ['a half-written key', '{"path": "a.txt", "lim', { path: 'a.txt' }],
    ['a half-written escape', '{"content": "tab\\', { content: 'tab' }],
    ['a half-written unicode escape', '{"content": "e\\u00', { content: 'e' }],
    ['an escaped backslash at the end', '{"content": "dir\\\\', { content: 'dir\\' }],
    [
      'nested brackets, innermost first',
      '{"edits": [{"old_string": "a", "new_string": "b"',
      { edits: [{ old_string: 'a', new_string: 'b' }] },
    ],
    ['only an opening brace', '{', {}],
  ])('S5 closes truncated JSON: %s', (_label, raw, value) => {
    const result = parsed(raw);
    expect(result.value).toEqual(value);
    expect(kinds(result)).toEqual(['closed_truncated']);
  });

  it('S5 after S4: a truncated single-quoted argument string', () => {
    const result = parsed("{'path': 'a.txt', 'content': 'partial");
    expect(result.value).toEqual({ path: 'a.txt', content: 'partial' });
    expect(kinds(result)).toEqual(['single_quotes', 'closed_truncated']);
  });

  it('S5 after S3: prose followed by a truncated object', () => {
    const result = parsed('Sure: {"path": "a.txt", "limit": 5');
    expect(result.value).toEqual({ path: 'a.txt', limit: 5 });
    expect(kinds(result)).toEqual(['extracted_object', 'closed_truncated']);
  });

  it('S6: decodes double-encoded arguments', () => {
    const once = JSON.stringify(JSON.stringify({ path: 'a.txt' }));
    const result = parsed(once);
    expect(result.value).toEqual({ path: 'a.txt' });
    expect(result.repairs).toEqual([{ stage: 'parse', kind: 'double_encoded' }]);
  });

  it('S6: decodes at most two levels', () => {
    const twice = JSON.stringify(JSON.stringify(JSON.stringify({ path: 'a.txt' })));
    expect(kinds(parsed(twice))).toEqual(['double_encoded', 'double_encoded']);
    const thrice = JSON.stringify(twice);
    expect(failed(thrice).reason).toBe('arguments_not_object');
  });

  it('S6: a double-encoded object may itself need repair', () => {
    const result = parsed(JSON.stringify("{'path': 'a.txt',}"));
    expect(result.value).toEqual({ path: 'a.txt' });
    expect(kinds(result)).toEqual(['double_encoded', 'single_quotes', 'trailing_comma']);
  });

  it('S7: a function tool takes non-JSON text as its raw input', () => {
    const raw = '  ls -la, then = done  ';
    const result = parsed(raw, { functionTool: true });
    expect(result.value).toEqual({ input: raw });
    expect(result.repairs).toEqual([{ stage: 'parse', kind: 'raw_string_input' }]);
  });

  it('S7: a function tool also takes non-object JSON as its raw input', () => {
    expect(parsed('["a.txt"]', { functionTool: true }).value).toEqual({ input: '["a.txt"]' });
    expect(parsed('42', { functionTool: true }).value).toEqual({ input: '42' });
  });

  it('S7 never applies to structured tools', () => {
    expect(failed('ls -la').reason).toBe('malformed_arguments');
  });
});

describe('§6 non-object JSON and failures', () => {
  it.each([
    ['["a.txt"]', 'array'],
    ['42', 'integer'],
    ['"a.txt"', 'string'],
    ['true', 'boolean'],
    ['["a.txt",]', 'array'],
  ])('stops at once on %j with arguments_not_object', (raw, got) => {
    const result = failed(raw);
    expect(result.reason).toBe('arguments_not_object');
    expect(result.details).toMatchObject({ got, raw_preview: raw });
  });

  it('reports malformed_arguments with the parse error, the strategies tried and a preview', () => {
    const raw = `{"command": "echo "hi" there"} ${'x'.repeat(300)}`;
    const result = failed(raw, { toolName: 'Bash' });
    expect(result.reason).toBe('malformed_arguments');
    const details = result.details as { parse_error: string; strategies_tried: string[]; raw_preview: string };
    expect(details.parse_error).toMatch(/JSON/);
    expect(details.strategies_tried.slice(0, 1)).toEqual(['S1']);
    expect(details.strategies_tried).toContain('S4');
    expect(details.raw_preview).toBe(raw.slice(0, 200));
    expect(result.message).toBe(
      `Arguments for Bash are not valid JSON (${details.parse_error}). Re-issue the call with a single JSON object.`,
    );
  });

  it('lists S2 and S5 only when they ran', () => {
    const fenced = failed('```\n{"a": tru\n```');
    expect(fenced.details.strategies_tried).toEqual(['S1', 'S2', 'S3', 'S4', 'S5']);
    const plain = failed('{"a": 1 "b": 2}');
    expect(plain.details.strategies_tried).toEqual(['S1', 'S3', 'S4']);
  });

  it('does not invent values: a truncated keyword is not completed', () => {
    expect(failed('{"path": "a.txt", "all": tru').reason).toBe('malformed_arguments');
  });

  it('does not use key=value fallbacks', () => {
    expect(failed('command=ls -la, cwd=src').reason).toBe('malformed_arguments');
  });
});

describe('§6 string contents are never changed', () => {
  const tricky = [
    'http://example.com//path',
    'a /* not a comment */ b',
    'True False None undefined NaN Infinity',
    'trailing ,} and ,]',
    "it's",
    'backslash \\ and \\n escape text',
    'unicode é ☃ 𝄞',
    "{'nested': 'braces'}",
    'key: value',
  ];

  it.each(tricky)('keeps %j intact through S4 repairs', (text) => {
    const raw = `{'value': ${JSON.stringify(text)}, other: 'x',}`;
    const result = parsed(raw);
    expect(result.value.value).toBe(text);
  });

  it.each(tricky)('keeps %j intact through S5 closing', (text) => {
    const raw = `{"value": ${JSON.stringify(text)}, "more": [1`;
    expect(parsed(raw).value.value).toBe(text);
  });

  it('keeps valid JSON byte-for-byte equivalent to JSON.parse', () => {
    const value = { a: tricky, b: { c: [1, 2.5, -3e2, null, true] } };
    expect(parsed(JSON.stringify(value, null, 2)).value).toEqual(value);
  });
});

describe('parseJsonAs (used by §7 string coercions)', () => {
  it('decodes an array, with the same repairs', () => {
    const result = parseJsonAs("[{'old_string': 'a', 'new_string': 'b'},]", 'array');
    expect(result.kind).toBe('value');
    if (result.kind === 'value') expect(result.value).toEqual([{ old_string: 'a', new_string: 'b' }]);
  });

  it('reports other JSON types as other', () => {
    expect(parseJsonAs('{"a": 1}', 'array')).toEqual({ kind: 'other', value: { a: 1 } });
  });
});
