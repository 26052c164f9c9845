// Workflow-safe: pure arithmetic over plain data, no clock and no I/O; the workflow keeps the ledger in its state.
// Model-call cost, the usage/cost ledger, the next-call estimate and the check against the cost limits (USD, tokens).
import { DEFAULT_PRICE_TABLE } from './price-table.js';
import type { ModelPrice, PriceTable } from './price-table.js';
import type { CostLedger } from '../protocol/run-report.js';

/**
 * Token counts of one model call. `cachedTokens` is the part of `promptTokens` read from the prompt cache,
 * `cacheWriteTokens` the part written to it.
 */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  cacheWriteTokens?: number;
}

/** The table entry a model name resolved to. */
export interface PriceMatch {
  /** The table key that matched (the model itself, or the longest prefix of it). */
  key: string;
  price: ModelPrice;
}

/** Cost of one call; `priced: false` means the model is not in the table and the cost was taken as 0. */
export interface CallCost {
  usd: number;
  priced: boolean;
}

/** What the next model call is expected to cost. */
export interface NextCallEstimate {
  promptTokens: number;
  completionTokens: number;
  estimatedTokens: number;
  estimatedUsd: number;
  priced: boolean;
}

/** Optional limits of a task. */
export interface CostLimits {
  budgetUsd?: number;
  maxTokens?: number;
}

/** Result of a budget check; `message` is ready to show the user (or the model). */
export interface CostLimitCheck {
  exceeded: boolean;
  which?: 'budget_usd' | 'max_tokens';
  message: string;
}

const TOKENS_PER_PRICE_UNIT = 1_000_000;
/** Rough characters per token of English text and JSON, the usual rule of thumb for GPT and Claude tokenizers. */
export const CHARS_PER_TOKEN = 4;
/** Completion tokens assumed for the first call of a task, before there is an average to go by. */
export const DEFAULT_COMPLETION_ESTIMATE = 512;

/**
 * Finds a model's price: exact name first, then the longest table key that is a prefix of the name and ends at a
 * separator ("gpt-4.1-mini-2025-04-14" → "gpt-4.1-mini", but "o3x" does not match "o3"). Matching ignores case and
 * a leading provider path ("openai/gpt-4.1"). Own keys only, so "constructor" is never a model.
 */
export function priceFor(model: string, table: PriceTable = DEFAULT_PRICE_TABLE): PriceMatch | undefined {
  const wanted = normalizeModelName(model);
  if (wanted === '') return undefined;
  let best: PriceMatch | undefined;
  for (const [key, price] of Object.entries(table)) {
    const candidate = normalizeModelName(key);
    if (candidate === '') continue;
    if (candidate === wanted) return { key, price };
    const isPrefix = wanted.startsWith(candidate) && /^[^a-z0-9]/.test(wanted.slice(candidate.length));
    if (isPrefix && (best === undefined || candidate.length > normalizeModelName(best.key).length)) {
      best = { key, price };
    }
  }
  return best;
}

/**
 * USD cost of one call: uncached prompt tokens at the input price, cached ones at the cached price and ones written
 * to the cache at the cache-write price (each the input price when the model has none), completion tokens at the
 * output price. Cached and written tokens are part of the prompt count (clamped into it), as providers' usage is
 * translated (OpenAI counts them so; the Anthropic adapter adds them up).
 */
export function costOf(usage: TokenUsage, model: string, table: PriceTable = DEFAULT_PRICE_TABLE): CallCost {
  const match = priceFor(model, table);
  if (!match) return { usd: 0, priced: false };
  const prompt = nonNegative(usage.promptTokens);
  const cached = Math.min(prompt, nonNegative(usage.cachedTokens ?? 0));
  const written = Math.min(prompt - cached, nonNegative(usage.cacheWriteTokens ?? 0));
  const { input, output } = match.price;
  const cachedInput = match.price.cachedInput ?? input;
  const cacheWrite = match.price.cacheWrite ?? input;
  const usd =
    ((prompt - cached - written) * input +
      cached * cachedInput +
      written * cacheWrite +
      nonNegative(usage.completionTokens) * output) /
    TOKENS_PER_PRICE_UNIT;
  return { usd, priced: true };
}

/** A ledger with nothing spent. */
export function emptyCostLedger(): CostLedger {
  return {
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    totalTokens: 0,
    modelCalls: 0,
    costUsd: 0,
    lastPromptTokens: 0,
    unpricedModels: [],
  };
}

/** Adds one model call to the ledger and returns the new ledger. `totalTokens` defaults to prompt + completion. */
export function recordModelCall(
  ledger: CostLedger,
  usage: TokenUsage & { totalTokens?: number },
  model: string,
  table: PriceTable = DEFAULT_PRICE_TABLE,
): CostLedger {
  const cost = costOf(usage, model, table);
  const prompt = nonNegative(usage.promptTokens);
  const completion = nonNegative(usage.completionTokens);
  const unknown = !cost.priced && !ledger.unpricedModels.includes(model);
  return {
    promptTokens: ledger.promptTokens + prompt,
    completionTokens: ledger.completionTokens + completion,
    cachedTokens: ledger.cachedTokens + Math.min(prompt, nonNegative(usage.cachedTokens ?? 0)),
    totalTokens: ledger.totalTokens + nonNegative(usage.totalTokens ?? prompt + completion),
    modelCalls: ledger.modelCalls + 1,
    costUsd: ledger.costUsd + cost.usd,
    lastPromptTokens: prompt,
    unpricedModels: unknown ? [...ledger.unpricedModels, model] : [...ledger.unpricedModels],
  };
}

/**
 * Estimates the next model call before it is made.
 *
 * Rule: the next prompt resends the previous one plus whatever the transcript gained since, so
 *   prompt     = lastPromptTokens + growthTokens
 *   completion = completionTokens / modelCalls (the task's average; DEFAULT_COMPLETION_ESTIMATE before any call)
 *   usd        = prompt × input price + completion × output price.
 * `growthTokens` is the caller's approximation (approximateTokens) of the messages appended since the last call —
 * the assistant turn and the tool results — plus, for the first call, the whole transcript and schemaTokens(tools).
 * Prompt-cache discounts are ignored, so the estimate errs high, which is the safe side for a budget.
 */
export function estimateNextCall(
  ledger: Pick<CostLedger, 'lastPromptTokens' | 'completionTokens' | 'modelCalls'>,
  options: { growthTokens: number; model: string; table?: PriceTable; defaultCompletionTokens?: number },
): NextCallEstimate {
  const promptTokens = nonNegative(ledger.lastPromptTokens) + nonNegative(options.growthTokens);
  const completionTokens =
    ledger.modelCalls > 0
      ? Math.round(nonNegative(ledger.completionTokens) / ledger.modelCalls)
      : nonNegative(options.defaultCompletionTokens ?? DEFAULT_COMPLETION_ESTIMATE);
  const cost = costOf({ promptTokens, completionTokens }, options.model, options.table ?? DEFAULT_PRICE_TABLE);
  return {
    promptTokens,
    completionTokens,
    estimatedTokens: promptTokens + completionTokens,
    estimatedUsd: cost.usd,
    priced: cost.priced,
  };
}

/**
 * Whether making the next call could take the task past a limit: spent + estimate > limit. The USD budget is
 * checked first. An unpriced model costs 0, so only `maxTokens` can stop it.
 */
export function wouldExceedCostLimit(
  ledger: Pick<CostLedger, 'costUsd' | 'totalTokens'>,
  next: Pick<NextCallEstimate, 'estimatedUsd' | 'estimatedTokens'>,
  limits: CostLimits,
): CostLimitCheck {
  if (limits.budgetUsd !== undefined && ledger.costUsd + next.estimatedUsd > limits.budgetUsd) {
    return {
      exceeded: true,
      which: 'budget_usd',
      message:
        `The cost budget of ${formatUsd(limits.budgetUsd)} would be exceeded: ${formatUsd(ledger.costUsd)} spent, ` +
        `next model call estimated at ${formatUsd(next.estimatedUsd)}.`,
    };
  }
  if (limits.maxTokens !== undefined && ledger.totalTokens + next.estimatedTokens > limits.maxTokens) {
    return {
      exceeded: true,
      which: 'max_tokens',
      message:
        `The token limit of ${limits.maxTokens} would be exceeded: ${ledger.totalTokens} tokens used, ` +
        `next model call estimated at ${next.estimatedTokens}.`,
    };
  }
  return {
    exceeded: false,
    message: `Within limits: ${formatUsd(ledger.costUsd)} and ${ledger.totalTokens} tokens used so far.`,
  };
}

/** Approximate token count of a string, or of any other value's JSON: characters / 4, rounded up. */
export function approximateTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Approximate prompt tokens of the tool list: providers bill the function schemas as prompt input. */
export function schemaTokens(toolSchemas: readonly unknown[]): number {
  return toolSchemas.length === 0 ? 0 : approximateTokens(toolSchemas);
}

/** Dollars with cents, or four decimals below one dollar where cents would hide the spend. */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(Math.abs(usd) >= 1 ? 2 : 4)}`;
}

function normalizeModelName(name: string): string {
  const trimmed = name.trim().toLowerCase();
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function nonNegative(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}
