// Node: JSON Schema validation of structured results with ajv — the model activity checks a turn's FinalResult calls
// here, and the CLI checks a schema before a run starts. Never imported by workflow code.
import { ApplicationFailure } from '@temporalio/common';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';
import { parseArguments } from '../core/arguments/parse-arguments.js';
import { FINAL_RESULT_TOOL, isFinalResultCall } from '../core/final-result.js';
import type { FinalResultCheck, RawToolCall } from '../protocol/model.js';
import { draft07 } from './validators.js';

/** A run's schema is compiled once per worker, not once per step. */
const compiled = new LRUCache<string, ValidateFunction>({ max: 100 });

/** The schema compiled, or an Error saying why it is not a usable JSON Schema. */
export function compileOutputSchema(schema: unknown): ValidateFunction {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new Error('an output schema must be a JSON object');
  if ((schema as { type?: unknown }).type !== 'object')
    throw new Error(
      `an output schema must describe an object ("type": "object"): it becomes ${FINAL_RESULT_TOOL}'s parameters`,
    );
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  let validate: ValidateFunction;
  try {
    validate = draft07.compile(schema);
  } catch (error) {
    throw new Error(`invalid JSON Schema: ${(error as Error).message}`);
  }
  compiled.set(key, validate);
  return validate;
}

/** The same check inside the model activity: a schema it cannot use fails the run at once (retrying cannot help). */
export function outputSchemaValidator(schema: unknown): ValidateFunction {
  try {
    return compileOutputSchema(schema);
  } catch (error) {
    throw ApplicationFailure.nonRetryable(`Output schema: ${(error as Error).message}`, 'InvalidOutputSchema');
  }
}

/** The turn's FinalResult calls against the schema: the first valid one's value, else every violation of the first. */
export function checkFinalResult(
  validate: ValidateFunction,
  calls: readonly RawToolCall[],
): FinalResultCheck | undefined {
  const finals = calls.filter((call) => isFinalResultCall(call.name));
  if (finals.length === 0) return undefined;
  let firstErrors: string[] | undefined;
  for (const call of finals) {
    const checked = check(validate, call);
    if (checked.valid) return checked;
    firstErrors ??= checked.errors;
  }
  return { valid: false, errors: firstErrors! };
}

function check(validate: ValidateFunction, call: RawToolCall): FinalResultCheck {
  if (!call.complete) return { valid: false, errors: ['the arguments were cut off before they were complete'] };
  // Only strictly valid JSON is a result: a repaired parse would return something the model did not write.
  const parsed = parseArguments(call.arguments, { toolName: FINAL_RESULT_TOOL });
  if (!parsed.ok) return { valid: false, errors: [parsed.message] };
  if (parsed.repairs.length > 0) return { valid: false, errors: ['the arguments are not valid JSON'] };
  if (validate(parsed.value)) return { valid: true, value: parsed.value };
  return { valid: false, errors: (validate.errors ?? []).map(describe) };
}

/** One violation as the model and the operator read it: where, and what is wrong. */
function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
      : error.keyword === 'enum'
        ? ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`
        : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}
