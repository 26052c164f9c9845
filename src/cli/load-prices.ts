// Node: reads a user price file and merges it over the built-in table, so prices can follow the providers
// without a release. The file maps model names (or name prefixes) to USD per 1M tokens:
//   { "gpt-4.1": { "input": 2, "cachedInput": 0.5, "output": 8 }, "my-local-model": { "input": 0, "output": 0 } }
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_PRICE_TABLE } from '../core/price-table.js';
import type { ModelPrice, PriceTable } from '../core/price-table.js';

/** Environment variable naming the price file. */
export const PRICES_ENV_VARIABLE = 'DURABLE_AGENT_PRICES';

const usdPerMillion = z.number().finite().nonnegative();

const priceFileSchema = z.record(
  z.string().trim().min(1, 'a model name must not be empty'),
  z.strictObject({
    input: usdPerMillion,
    cachedInput: usdPerMillion.optional(),
    cacheWrite: usdPerMillion.optional(),
    output: usdPerMillion,
  }),
);

/** A price file that cannot be read or does not validate; the message names the file and the bad entry. */
export class PriceFileError extends Error {
  override name = 'PriceFileError';
}

/**
 * The price table to use: the built-in defaults with the user's file merged over them (a user entry replaces the
 * default entry of the same name whole). The file is `filePath`, else `$DURABLE_AGENT_PRICES`; with neither, the
 * defaults. A relative path is resolved against the current directory.
 */
export async function loadPriceTable(
  filePath?: string,
  options: { env?: NodeJS.ProcessEnv; defaults?: PriceTable } = {},
): Promise<PriceTable> {
  const defaults = options.defaults ?? DEFAULT_PRICE_TABLE;
  const chosen = filePath ?? (options.env ?? process.env)[PRICES_ENV_VARIABLE];
  if (chosen === undefined || chosen.trim() === '') return { ...defaults };
  const resolved = path.resolve(chosen);
  let text: string;
  try {
    text = await readFile(resolved, 'utf8');
  } catch (error) {
    throw new PriceFileError(`Cannot read price file '${resolved}': ${(error as Error).message}`, { cause: error });
  }
  return { ...defaults, ...parsePriceFile(text, resolved) };
}

/** Validates the text of a price file; `source` names the file in error messages. */
export function parsePriceFile(text: string, source: string): Record<string, ModelPrice> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PriceFileError(`Price file '${source}' is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = priceFileSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const [model, ...field] = issue.path.map(String);
    if (model === undefined)
      return `${issue.message} (expected an object of model name → { input, cachedInput?, cacheWrite?, output })`;
    const where = field.length > 0 ? `entry '${model}', field '${field.join('.')}'` : `entry '${model}'`;
    return `${where}: ${issue.message}`;
  });
  throw new PriceFileError(`Invalid price file '${source}': ${problems.join('; ')}. Prices are USD per 1M tokens.`);
}
