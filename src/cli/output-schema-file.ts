// Node: `run --output-schema FILE` — the schema read and compiled before the run starts, so a bad one is a usage error
// here rather than a failed run.
import { readFile } from 'node:fs/promises';
import { compileOutputSchema } from '../json-schema/output-schema.js';
import { UsageError } from './exit-codes.js';

/** The JSON Schema object in `path`, checked with the validator the worker uses. */
export async function readOutputSchema(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--output-schema ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--output-schema ${path}: not valid JSON (${(error as Error).message})`);
  }
  try {
    compileOutputSchema(schema);
  } catch (error) {
    throw new UsageError(`--output-schema ${path}: ${(error as Error).message}`);
  }
  return schema as Record<string, unknown>;
}
