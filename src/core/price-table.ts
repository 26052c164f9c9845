// Workflow-safe: plain data, imported by the workflow (budgets) and by the price-file loader alike.
// Default model prices; a user price file (DURABLE_AGENT_PRICES, see cli/load-prices.ts) is merged over them.

/** USD per 1M tokens for one model. */
export interface ModelPrice {
  /** Uncached prompt tokens (the tool schemas are billed here too). */
  input: number;
  /** Prompt tokens served from the provider's prompt cache; the input price when absent. */
  cachedInput?: number;
  /** Prompt tokens written to the provider's prompt cache (Anthropic bills them above input); input when absent. */
  cacheWrite?: number;
  /** Completion tokens, reasoning tokens included. */
  output: number;
}

/** Model name (or name prefix, see priceFor) → price. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Published list prices (standard tier, no batch or priority) as of 2025-10, from the providers' pricing pages
 * (platform.openai.com/docs/pricing, docs.anthropic.com/en/docs/about-claude/pricing), cross-checked against
 * independent price trackers. Anthropic's cached price is its cache-read rate (0.1 × input) and its cache-write
 * price the 5-minute cache write (1.25 × input), the cache the Anthropic adapter asks for; Sonnet's long-context
 * rate (prompts over 200K tokens) is not modelled. Prices change: override or extend them with a price file rather
 * than editing this table. Dated snapshots ("gpt-4.1-mini-2025-04-14", "claude-sonnet-4-20250514") resolve by
 * longest prefix.
 */
export const DEFAULT_PRICE_TABLE: PriceTable = Object.freeze({
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  'gpt-5-pro': { input: 15, output: 120 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o3-pro': { input: 20, output: 80 },
  'o3-mini': { input: 1.1, cachedInput: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  'claude-opus-4': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
  'claude-opus-4-1': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
  'claude-opus-4-5': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-sonnet-4': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-sonnet-4-5': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-3-7-sonnet': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-3-5-sonnet': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-haiku-4-5': { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
  'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4 },
  'claude-3-haiku': { input: 0.25, cachedInput: 0.03, cacheWrite: 0.3, output: 1.25 },
  // The scripted test provider costs nothing, but is priced so budgets treat it as a known model.
  scripted: { input: 0, cachedInput: 0, output: 0 },
});
