// Workflow-safe: pure functions, no Node builtins, no I/O, no clock.
// Tolerant JSON argument parsing (docs/tools.md §6): strategies S1–S7 in the documented order, each repair tagged.
//
// The lexical strategies are our own state machine; the project does not depend on the `jsonrepair` library because
// it reports nothing about what it changed (the repair tags are part of the contract), and several of its repairs
// contradict §6 — it drops the backslash of an unknown escape (`"a\qb"` → `"aqb"`, changing a string), turns
// `NaN`/`Infinity` into the strings "NaN"/"Infinity", gives a dangling `"key":` the value null, makes `tru` the
// string "tru", and silently inserts commas and colons. Each of those would invent or alter a value §6 forbids.

import type { Repair } from '../../protocol/envelope.js';
import { utf8ByteLength } from '../../protocol/envelope.js';
import { closeTruncated, findBalancedEnd, repairLexically } from './lexical-repair.js';

/** The §6 size limit for a raw argument string. */
export const MAX_ARGUMENT_BYTES = 8 * 1024 * 1024;

/**
 * Deepest nesting of objects and arrays accepted in arguments. No tool's arguments go past a few levels; far deeper
 * values (a model looping on `[[[[…`) would overflow every recursive walk after parsing — the repair, the echo in the
 * envelope, the payload converter — so they are refused here, as data.
 */
export const MAX_ARGUMENT_NESTING = 64;

const PREVIEW_CHARS = 200;
const MAX_DECODE_DEPTH = 2;
const CODE_FENCE = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?```$/;

/** Options for {@link parseArguments}. */
export interface ParseOptions {
  /** Function tools (§12) fall back to `{input: raw}` (S7) instead of failing. */
  functionTool?: boolean;
  /** Tool name used in the model-facing message. */
  toolName?: string;
}

/** The outcome of §6: a plain object with its repairs, or an INVALID_PARAM reason with model-facing text. */
export type ParseResult =
  | { ok: true; value: Record<string, unknown>; repairs: Repair[] }
  | { ok: false; reason: string; message: string; details: Record<string, unknown> };

/** What {@link parseJsonAs} can be asked to produce. */
export type JsonTarget = 'object' | 'array';

/** The outcome of decoding text towards an object or an array. */
export type DecodeResult =
  | { kind: 'value'; value: Record<string, unknown> | unknown[]; repairs: Repair[] }
  | { kind: 'other'; value: unknown }
  | { kind: 'failed'; parseError: string; strategiesTried: string[]; tooDeep?: true };

/** True for `{}`-style objects, false for arrays, class instances and null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The JSON type name of a value, as used in repair records and messages. */
export function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function parseRepair(kind: string): Repair {
  return { stage: 'parse', kind };
}

type Strict = { ok: true; value: unknown } | { ok: false; error: string };

function parseStrict(text: string): Strict {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function matchesTarget(value: unknown, target: JsonTarget): value is Record<string, unknown> | unknown[] {
  return target === 'object' ? isPlainObject(value) : Array.isArray(value);
}

/**
 * Runs S1–S6 on text, looking for a value of the target kind. Used for tool arguments (objects) and, through
 * §7's `string_to_array`/`string_to_object`, for a parameter value a model sent as a JSON string.
 */
export function parseJsonAs(text: string, target: JsonTarget, depth = 0): DecodeResult {
  const tried: string[] = [];
  const opener = target === 'object' ? '{' : '[';

  // S6: a strategy produced a JSON string, which may hold the real arguments encoded once more — or, one level
  // down, a string that is itself an encoded string.
  const settle = (value: unknown, repairs: Repair[]): DecodeResult => {
    if (matchesTarget(value, target)) {
      if (nestedDeeperThan(value, MAX_ARGUMENT_NESTING)) {
        const parseError = `nested more than ${MAX_ARGUMENT_NESTING} levels deep`;
        return { kind: 'failed', parseError, strategiesTried: tried, tooDeep: true };
      }
      return { kind: 'value', value, repairs };
    }
    const encoded = typeof value === 'string' ? value.trim() : '';
    if ((encoded.startsWith(opener) || encoded.startsWith('"')) && depth < MAX_DECODE_DEPTH) {
      tried.push('S6');
      const inner = parseJsonAs(encoded, target, depth + 1);
      if (inner.kind === 'value') {
        return {
          kind: 'value',
          value: inner.value,
          repairs: [...repairs, parseRepair('double_encoded'), ...inner.repairs],
        };
      }
      if (inner.kind === 'failed' && encoded.startsWith(opener)) {
        return { ...inner, strategiesTried: [...tried, ...inner.strategiesTried] };
      }
      return { kind: 'other', value };
    }
    return { kind: 'other', value };
  };

  tried.push('S1');
  const strict = parseStrict(text);
  if (strict.ok) return settle(strict.value, []);
  const parseError = strict.error;

  let work = text;
  const pending: Repair[] = [];

  const fence = CODE_FENCE.exec(text);
  if (fence) {
    tried.push('S2');
    work = (fence[1] as string).trim();
    pending.push(parseRepair('code_fence'));
    const inner = parseStrict(work);
    if (inner.ok) return settle(inner.value, pending);
  }

  const start = work.indexOf(opener);
  if (start !== -1) {
    tried.push('S3');
    const end = findBalancedEnd(work, start);
    const slice = end === -1 ? work.slice(start) : work.slice(start, end + 1);
    const surrounded = work.slice(0, start).trim() !== '' || (end !== -1 && work.slice(end + 1).trim() !== '');
    if (surrounded) {
      pending.push(parseRepair('extracted_object'));
      if (end !== -1) {
        const extracted = parseStrict(slice);
        if (extracted.ok) return settle(extracted.value, pending);
      }
    }
    work = slice;
  }

  tried.push('S4');
  const lexical = repairLexically(work);
  const lexicalRepairs = lexical.kinds.map(parseRepair);
  if (lexical.kinds.length > 0) {
    const repaired = parseStrict(lexical.text);
    if (repaired.ok) return settle(repaired.value, [...pending, ...lexicalRepairs]);
  }

  const closed = closeTruncated(lexical);
  if (closed !== null) {
    tried.push('S5');
    const completed = parseStrict(closed);
    if (completed.ok) return settle(completed.value, [...pending, ...lexicalRepairs, parseRepair('closed_truncated')]);
  }

  return { kind: 'failed', parseError, strategiesTried: tried };
}

/** Whether objects and arrays nest deeper than `limit`; iterative, so any depth JSON.parse accepts is measured. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: { item: unknown; depth: number }[] = [{ item: value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.item === null || typeof next.item !== 'object') continue;
    if (next.depth > limit) return true;
    for (const child of Object.values(next.item)) pending.push({ item: child, depth: next.depth + 1 });
  }
  return false;
}

function preview(raw: string): string {
  return raw.slice(0, PREVIEW_CHARS);
}

/**
 * §6: turns a model's raw tool-call arguments into a plain object, trying each strategy in order and recording
 * what it repaired. Failures are data (an INVALID_PARAM reason and text the model can act on), never exceptions.
 */
export function parseArguments(raw: unknown, options: ParseOptions = {}): ParseResult {
  const tool = options.toolName ?? 'this tool';

  const notObject = (got: string, rawPreview?: string): ParseResult => ({
    ok: false,
    reason: 'arguments_not_object',
    message: `Arguments for ${tool} must be a JSON object, not ${got === 'array' || got === 'integer' ? 'an' : 'a'} ${got}. Re-issue the call with a single JSON object.`,
    details: { reason: 'arguments_not_object', got, ...(rawPreview === undefined ? {} : { raw_preview: rawPreview }) },
  });

  if (raw === null || raw === undefined) return { ok: true, value: {}, repairs: [] };
  if (isPlainObject(raw)) return { ok: true, value: { ...raw }, repairs: [] };
  if (typeof raw !== 'string') return notObject(jsonTypeOf(raw));

  // Every UTF-16 unit is at least one UTF-8 byte, so only long strings need counting.
  if (raw.length > MAX_ARGUMENT_BYTES / 3) {
    const bytes = raw.length > MAX_ARGUMENT_BYTES ? raw.length : utf8ByteLength(raw);
    if (bytes > MAX_ARGUMENT_BYTES) {
      return {
        ok: false,
        reason: 'too_large',
        message: `Arguments for ${tool} are too large (over ${MAX_ARGUMENT_BYTES} bytes). Re-issue the call with smaller arguments.`,
        details: { reason: 'too_large', size_bytes: bytes, limit_bytes: MAX_ARGUMENT_BYTES, raw_preview: preview(raw) },
      };
    }
  }

  const rawInput = (): ParseResult => ({ ok: true, value: { input: raw }, repairs: [parseRepair('raw_string_input')] });

  const text = raw.replace(/^\uFEFF/, '').trim();
  if (text === '') return { ok: true, value: {}, repairs: [] };

  const decoded = parseJsonAs(text, 'object');
  if (decoded.kind === 'value')
    return { ok: true, value: decoded.value as Record<string, unknown>, repairs: decoded.repairs };
  if (options.functionTool) return rawInput();
  if (decoded.kind === 'failed' && decoded.tooDeep) {
    return {
      ok: false,
      reason: 'too_deep',
      message: `Arguments for ${tool} are ${decoded.parseError}. Re-issue the call with the arguments the tool's schema describes.`,
      details: { reason: 'too_deep', limit: MAX_ARGUMENT_NESTING, raw_preview: preview(raw) },
    };
  }
  if (decoded.kind === 'other') {
    // `null` means "no arguments", exactly as a missing arguments field does.
    if (decoded.value === null) return { ok: true, value: {}, repairs: [] };
    return notObject(jsonTypeOf(decoded.value), preview(raw));
  }
  return {
    ok: false,
    reason: 'malformed_arguments',
    message: `Arguments for ${tool} are not valid JSON (${decoded.parseError}). Re-issue the call with a single JSON object.`,
    details: {
      reason: 'malformed_arguments',
      parse_error: decoded.parseError,
      strategies_tried: decoded.strategiesTried,
      raw_preview: preview(raw),
    },
  };
}
