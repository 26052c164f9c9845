import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICE_TABLE } from '../../src/core/price-table.js';
import type { PriceTable } from '../../src/core/price-table.js';
import {
  DEFAULT_COMPLETION_ESTIMATE,
  approximateTokens,
  costOf,
  emptyCostLedger,
  estimateNextCall,
  formatUsd,
  priceFor,
  recordModelCall,
  schemaTokens,
  wouldExceedCostLimit,
} from '../../src/core/pricing.js';

const table: PriceTable = {
  'model-a': { input: 2, cachedInput: 0.5, output: 8 },
  'model-a-mini': { input: 0.4, output: 1.6 },
  free: { input: 0, output: 0 },
};

describe('priceFor', () => {
  it('matches an exact name', () => {
    expect(priceFor('gpt-4.1', DEFAULT_PRICE_TABLE)?.key).toBe('gpt-4.1');
    expect(priceFor('o3')?.key).toBe('o3');
  });

  it('matches a dated snapshot by the longest prefix', () => {
    expect(priceFor('gpt-4.1-mini-2025-04-14')?.key).toBe('gpt-4.1-mini');
    expect(priceFor('gpt-4.1-2025-04-14')?.key).toBe('gpt-4.1');
    expect(priceFor('gpt-4o-mini-2024-07-18')?.key).toBe('gpt-4o-mini');
    expect(priceFor('claude-sonnet-4-20250514')?.key).toBe('claude-sonnet-4');
    expect(priceFor('claude-opus-4-1-20250805')?.key).toBe('claude-opus-4-1');
    expect(priceFor('claude-3-5-haiku-20241022')?.key).toBe('claude-3-5-haiku');
    expect(priceFor('gpt-5-mini-2025-08-07')?.key).toBe('gpt-5-mini');
  });

  it('only accepts a prefix that ends at a separator', () => {
    expect(priceFor('o3x', table)).toBeUndefined();
    expect(priceFor('model-abc', table)).toBeUndefined();
    expect(priceFor('model-a.1', table)?.key).toBe('model-a');
  });

  it('ignores case and a leading provider path', () => {
    expect(priceFor('OpenAI/GPT-4.1-mini')?.key).toBe('gpt-4.1-mini');
    expect(priceFor('Model-A', table)?.key).toBe('model-a');
  });

  it('returns undefined for unknown models and inherited property names', () => {
    expect(priceFor('llama3:8b')).toBeUndefined();
    expect(priceFor('constructor', table)).toBeUndefined();
    expect(priceFor('', table)).toBeUndefined();
  });

  it('covers every model family the agent is expected to run', () => {
    for (const model of [
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4.1-nano',
      'gpt-4o',
      'gpt-4o-mini',
      'o3',
      'o4-mini',
      'gpt-5',
      'gpt-5-mini',
      'gpt-5-nano',
      'claude-sonnet-4',
      'claude-opus-4',
      'claude-3-5-haiku',
      'scripted',
    ]) {
      const match = priceFor(model);
      expect(match?.key, model).toBe(model);
      expect(match!.price.output).toBeGreaterThanOrEqual(match!.price.input);
    }
    expect(priceFor('scripted')?.price).toEqual({ input: 0, cachedInput: 0, output: 0 });
  });
});

describe('costOf', () => {
  it('prices prompt and completion tokens per million', () => {
    const cost = costOf({ promptTokens: 1_000_000, completionTokens: 500_000 }, 'model-a', table);
    expect(cost.priced).toBe(true);
    expect(cost.usd).toBeCloseTo(2 + 4, 10);
  });

  it('charges cached prompt tokens at the cached price', () => {
    // 600k uncached × $2 + 400k cached × $0.5 + 100k out × $8 = 1.2 + 0.2 + 0.8
    const cost = costOf(
      { promptTokens: 1_000_000, completionTokens: 100_000, cachedTokens: 400_000 },
      'model-a',
      table,
    );
    expect(cost.usd).toBeCloseTo(2.2, 10);
  });

  it('uses the input price for cached tokens when the model has no cached price', () => {
    const cost = costOf(
      { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 1_000_000 },
      'model-a-mini',
      table,
    );
    expect(cost.usd).toBeCloseTo(0.4, 10);
  });

  it('charges prompt-cache writes at the cache-write price, the input price when the model has none', () => {
    const withWrites: PriceTable = { claude: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 } };
    // 100k input × $3 + 600k read × $0.3 + 300k written × $3.75 = 0.3 + 0.18 + 1.125
    const usage = { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 600_000, cacheWriteTokens: 300_000 };
    expect(costOf(usage, 'claude', withWrites).usd).toBeCloseTo(1.605, 10);
    // model-a: 100k × $2 + 600k × $0.5 + 300k × $2
    expect(costOf(usage, 'model-a', table).usd).toBeCloseTo(1.1, 10);
    // Writes are part of the prompt: never more than what is left of it after the cached part.
    expect(costOf({ ...usage, cacheWriteTokens: 5_000_000 }, 'claude', withWrites).usd).toBeCloseTo(0.18 + 1.5, 10);
  });

  it('clamps cached tokens to the prompt count and ignores negative counts', () => {
    const cost = costOf({ promptTokens: 1000, completionTokens: -5, cachedTokens: 5000 }, 'model-a', table);
    expect(cost.usd).toBeCloseTo((1000 * 0.5) / 1_000_000, 12);
  });

  it('prices a real model from the default table', () => {
    const cost = costOf({ promptTokens: 10_000, completionTokens: 2_000 }, 'gpt-4.1-mini-2025-04-14');
    expect(cost.usd).toBeCloseTo((10_000 * 0.4 + 2_000 * 1.6) / 1_000_000, 12);
  });

  it('costs 0 with priced: false for an unknown model', () => {
    expect(costOf({ promptTokens: 5000, completionTokens: 5000 }, 'mystery-model', table)).toEqual({
      usd: 0,
      priced: false,
    });
  });

  it('costs 0 with priced: true for the scripted model', () => {
    expect(costOf({ promptTokens: 5000, completionTokens: 5000 }, 'scripted')).toEqual({ usd: 0, priced: true });
  });
});

describe('ledger', () => {
  it('sums usage and cost across calls and remembers the last prompt', () => {
    let ledger = emptyCostLedger();
    ledger = recordModelCall(ledger, { promptTokens: 1000, completionTokens: 200 }, 'model-a', table);
    ledger = recordModelCall(
      ledger,
      { promptTokens: 3000, completionTokens: 400, cachedTokens: 1000, totalTokens: 3400 },
      'model-a',
      table,
    );
    expect(ledger).toMatchObject({
      promptTokens: 4000,
      completionTokens: 600,
      cachedTokens: 1000,
      totalTokens: 4600,
      modelCalls: 2,
      lastPromptTokens: 3000,
      unpricedModels: [],
    });
    const expected = (1000 * 2 + 200 * 8 + 2000 * 2 + 1000 * 0.5 + 400 * 8) / 1_000_000;
    expect(ledger.costUsd).toBeCloseTo(expected, 12);
  });

  it('records unpriced models once and does not mutate the previous ledger', () => {
    const start = emptyCostLedger();
    const once = recordModelCall(start, { promptTokens: 10, completionTokens: 1 }, 'mystery', table);
    const twice = recordModelCall(once, { promptTokens: 10, completionTokens: 1 }, 'mystery', table);
    expect(twice.unpricedModels).toEqual(['mystery']);
    expect(twice.costUsd).toBe(0);
    expect(twice.totalTokens).toBe(22);
    expect(start).toEqual(emptyCostLedger());
    expect(once.modelCalls).toBe(1);
  });
});

describe('estimateNextCall', () => {
  it('is (last prompt + growth) × input price plus the average completion × output price', () => {
    let ledger = emptyCostLedger();
    ledger = recordModelCall(ledger, { promptTokens: 1000, completionTokens: 100 }, 'model-a', table);
    ledger = recordModelCall(ledger, { promptTokens: 2000, completionTokens: 300 }, 'model-a', table);
    const estimate = estimateNextCall(ledger, { growthTokens: 500, model: 'model-a', table });
    expect(estimate).toMatchObject({ promptTokens: 2500, completionTokens: 200, estimatedTokens: 2700, priced: true });
    expect(estimate.estimatedUsd).toBeCloseTo((2500 * 2 + 200 * 8) / 1_000_000, 12);
  });

  it('ignores the prompt cache, so the estimate errs high', () => {
    let ledger = emptyCostLedger();
    ledger = recordModelCall(ledger, { promptTokens: 2000, completionTokens: 0, cachedTokens: 2000 }, 'model-a', table);
    const estimate = estimateNextCall(ledger, { growthTokens: 0, model: 'model-a', table });
    expect(estimate.estimatedUsd).toBeCloseTo((2000 * 2) / 1_000_000, 12);
  });

  it('before any call, takes the growth as the whole prompt and a default completion', () => {
    const estimate = estimateNextCall(emptyCostLedger(), { growthTokens: 1234, model: 'model-a', table });
    expect(estimate.promptTokens).toBe(1234);
    expect(estimate.completionTokens).toBe(DEFAULT_COMPLETION_ESTIMATE);
    const custom = estimateNextCall(emptyCostLedger(), {
      growthTokens: 0,
      model: 'model-a',
      table,
      defaultCompletionTokens: 10,
    });
    expect(custom.completionTokens).toBe(10);
  });

  it('estimates 0 USD with priced: false for an unknown model, but still counts tokens', () => {
    const estimate = estimateNextCall(emptyCostLedger(), { growthTokens: 100, model: 'mystery', table });
    expect(estimate).toMatchObject({
      estimatedUsd: 0,
      priced: false,
      estimatedTokens: 100 + DEFAULT_COMPLETION_ESTIMATE,
    });
  });
});

describe('wouldExceedCostLimit', () => {
  it('is exceeded by USD when spent + estimate passes the budget', () => {
    const check = wouldExceedCostLimit(
      { costUsd: 0.9, totalTokens: 10 },
      { estimatedUsd: 0.2, estimatedTokens: 10 },
      { budgetUsd: 1 },
    );
    expect(check.exceeded).toBe(true);
    expect(check.which).toBe('budget_usd');
    expect(check.message).toBe(
      'The cost budget of $1.00 would be exceeded: $0.9000 spent, next model call estimated at $0.2000.',
    );
  });

  it('is not exceeded when spent + estimate lands exactly on the budget', () => {
    const check = wouldExceedCostLimit(
      { costUsd: 0.5, totalTokens: 0 },
      { estimatedUsd: 0.5, estimatedTokens: 0 },
      { budgetUsd: 1 },
    );
    expect(check.exceeded).toBe(false);
    expect(check.which).toBeUndefined();
  });

  it('is exceeded by tokens when used + estimate passes maxTokens', () => {
    const check = wouldExceedCostLimit(
      { costUsd: 0, totalTokens: 9000 },
      { estimatedUsd: 0, estimatedTokens: 1001 },
      { budgetUsd: 5, maxTokens: 10_000 },
    );
    expect(check).toMatchObject({ exceeded: true, which: 'max_tokens' });
    expect(check.message).toContain('token limit of 10000');
    expect(check.message).toContain('9000 tokens used');
  });

  it('checks the USD budget before the token limit', () => {
    const check = wouldExceedCostLimit(
      { costUsd: 2, totalTokens: 99_999 },
      { estimatedUsd: 1, estimatedTokens: 99_999 },
      { budgetUsd: 2.5, maxTokens: 100 },
    );
    expect(check.which).toBe('budget_usd');
  });

  it('without limits never stops', () => {
    const check = wouldExceedCostLimit(
      { costUsd: 1e6, totalTokens: 1e9 },
      { estimatedUsd: 1e6, estimatedTokens: 1e9 },
      {},
    );
    expect(check.exceeded).toBe(false);
    expect(check.message).toContain('Within limits');
  });

  it('works end to end with the ledger and the estimate', () => {
    let ledger = emptyCostLedger();
    ledger = recordModelCall(ledger, { promptTokens: 100_000, completionTokens: 1000 }, 'model-a', table);
    const next = estimateNextCall(ledger, { growthTokens: 10_000, model: 'model-a', table });
    // spent 0.208, next ≈ 110k × 2e-6 + 1000 × 8e-6 = 0.228
    expect(wouldExceedCostLimit(ledger, next, { budgetUsd: 0.4 }).exceeded).toBe(true);
    expect(wouldExceedCostLimit(ledger, next, { budgetUsd: 0.5 }).exceeded).toBe(false);
  });
});

describe('token approximation', () => {
  it('counts characters / 4, rounded up', () => {
    expect(approximateTokens('abcd')).toBe(1);
    expect(approximateTokens('abcde')).toBe(2);
    expect(approximateTokens({ a: 1 })).toBe(2);
  });

  it('prices the tool list as its JSON text', () => {
    const schemas = [{ type: 'function', function: { name: 'ReadFile', description: 'Read a file.', parameters: {} } }];
    expect(schemaTokens(schemas)).toBe(Math.ceil(JSON.stringify(schemas).length / 4));
    expect(schemaTokens([])).toBe(0);
  });
});

describe('formatUsd', () => {
  it('shows cents from a dollar up and four decimals below', () => {
    expect(formatUsd(12.346)).toBe('$12.35');
    expect(formatUsd(0.01234)).toBe('$0.0123');
  });
});
