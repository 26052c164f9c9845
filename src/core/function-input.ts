// Workflow-safe: docs/tools.md §12 input mapping for function tools (a single raw `input` string).
import type { Repair } from '../protocol/envelope.js';

/** The mapped input, or the INVALID_PARAM the model gets back. */
export type FunctionInputResult =
  | { ok: true; input: { input: string }; repairs: Repair[]; ignoredParams: string[] }
  | { ok: false; message: string; details: Record<string, unknown> };

/** Maps parsed arguments (after §6, where S7 already turned non-JSON text into `{input: raw}`) to `{input: string}`. */
export function mapFunctionInput(toolName: string, value: Record<string, unknown>): FunctionInputResult {
  const given = value.input;
  if (typeof given === 'string') {
    const others = Object.keys(value).filter((key) => key !== 'input');
    return {
      ok: true,
      input: { input: given },
      repairs: others.map((param) => ({ stage: 'drop', kind: 'dropped_unknown', param })),
      ignoredParams: others,
    };
  }
  if (typeof given === 'number' || typeof given === 'boolean' || (given !== null && typeof given === 'object')) {
    const from = Array.isArray(given) ? 'array' : typeof given === 'object' ? 'object' : typeof given;
    const text = typeof given === 'object' ? JSON.stringify(given) : String(given);
    return {
      ok: true,
      input: { input: text },
      repairs: [{ stage: 'coerce', kind: 'coerce', param: 'input', from, to: 'string' }],
      ignoredParams: [],
    };
  }
  const strings = Object.entries(value).filter(([, item]) => typeof item === 'string');
  if (given === undefined && strings.length === 1) {
    const [key, text] = strings[0]!;
    const others = Object.keys(value).filter((name) => name !== key);
    return {
      ok: true,
      input: { input: text as string },
      repairs: [{ stage: 'input', kind: 'input_from_single_string_property' }],
      ignoredParams: others,
    };
  }
  return {
    ok: false,
    message: `Missing required parameter(s) for ${toolName}: input. Re-issue the call including them.`,
    details: { reason: 'missing_required', missing: ['input'] },
  };
}
