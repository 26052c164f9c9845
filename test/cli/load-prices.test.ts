import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRICES_ENV_VARIABLE, PriceFileError, loadPriceTable, parsePriceFile } from '../../src/cli/load-prices.js';
import { DEFAULT_PRICE_TABLE } from '../../src/core/price-table.js';
import { costOf } from '../../src/core/pricing.js';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'load-prices-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function priceFile(content: unknown): Promise<string> {
  const file = path.join(directory, 'prices.json');
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('loadPriceTable', () => {
  it('returns the defaults when no file is named', async () => {
    const table = await loadPriceTable(undefined, { env: {} });
    expect(table).toEqual(DEFAULT_PRICE_TABLE);
    expect(table).not.toBe(DEFAULT_PRICE_TABLE);
  });

  it('merges a valid file over the defaults: new models added, existing ones replaced whole', async () => {
    const file = await priceFile({
      'my-local-model': { input: 0.1, output: 0.2 },
      'gpt-4.1': { input: 1, output: 4 },
    });
    const table = await loadPriceTable(file, { env: {} });
    expect(table['my-local-model']).toEqual({ input: 0.1, output: 0.2 });
    expect(table['gpt-4.1']).toEqual({ input: 1, output: 4 });
    expect(table['gpt-4o']).toEqual(DEFAULT_PRICE_TABLE['gpt-4o']);
    expect(costOf({ promptTokens: 1_000_000, completionTokens: 0 }, 'my-local-model-q4', table)).toEqual({
      usd: 0.1,
      priced: true,
    });
  });

  it('reads the file named by DURABLE_AGENT_PRICES when no path is given', async () => {
    const file = await priceFile({ 'env-model': { input: 3, cachedInput: 1, cacheWrite: 4, output: 9 } });
    const table = await loadPriceTable(undefined, { env: { [PRICES_ENV_VARIABLE]: file } });
    expect(table['env-model']).toEqual({ input: 3, cachedInput: 1, cacheWrite: 4, output: 9 });
  });

  it('prefers an explicit path over the environment', async () => {
    const file = await priceFile({ explicit: { input: 1, output: 1 } });
    const table = await loadPriceTable(file, { env: { [PRICES_ENV_VARIABLE]: path.join(directory, 'missing.json') } });
    expect(table.explicit).toBeDefined();
  });

  it('rejects a bad entry with a message naming the file, the model and the field', async () => {
    const file = await priceFile({ 'gpt-4.1': { input: 2, output: 8 }, 'broken-model': { input: 'cheap', output: 1 } });
    const failure = loadPriceTable(file, { env: {} });
    await expect(failure).rejects.toBeInstanceOf(PriceFileError);
    await expect(failure).rejects.toThrow(`Invalid price file '${file}'`);
    await expect(failure).rejects.toThrow("entry 'broken-model', field 'input'");
  });

  it('rejects negative prices, missing fields and unknown keys', () => {
    expect(() => parsePriceFile(JSON.stringify({ m: { input: -1, output: 1 } }), 'p.json')).toThrow(
      /Invalid price file 'p.json': entry 'm', field 'input': .*>=0/,
    );
    expect(() => parsePriceFile(JSON.stringify({ m: { input: 1 } }), 'p.json')).toThrow(/entry 'm', field 'output'/);
    expect(() => parsePriceFile(JSON.stringify({ m: { input: 1, output: 1, cached_input: 1 } }), 'p.json')).toThrow(
      /entry 'm': .*cached_input/,
    );
  });

  it('rejects a file whose top level is not an object of models', () => {
    expect(() => parsePriceFile('[1, 2]', 'p.json')).toThrow(
      /Invalid price file 'p.json': .*expected an object of model name/,
    );
  });

  it('rejects a file that is not JSON, naming the file', async () => {
    const file = await priceFile('{ "gpt-4.1": ');
    await expect(loadPriceTable(file, { env: {} })).rejects.toThrow(`Price file '${file}' is not valid JSON`);
  });

  it('rejects a missing file, naming it', async () => {
    const missing = path.join(directory, 'nope.json');
    await expect(loadPriceTable(missing, { env: {} })).rejects.toThrow(`Cannot read price file '${missing}'`);
  });
});
