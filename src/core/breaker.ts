// Workflow-safe: pure functions over plain data; time comes in as `now` (workflow clock, ms), never from Date.
// The per-tool circuit breaker of docs/tools.md §10: the workflow keeps one BreakerState per tool name and per task.
import { BREAKER_COUNTED_CODES } from '../protocol/envelope.js';
import type { Envelope } from '../protocol/envelope.js';

/** The three breaker states of §10. */
export type CircuitState = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

/** One tool's breaker, JSON-serialisable so it survives continue-as-new. */
export interface BreakerState {
  state: CircuitState;
  failures: number;
  opened_at?: number;
  trial_in_flight: boolean;
  last_error?: string;
}

/** Breaker tuning (§10). */
export interface BreakerConfig {
  /** Consecutive counted failures that open the circuit; default 3, minimum 1. */
  threshold: number;
  /** How long an OPEN circuit rejects calls before one trial is let through; default 300000, minimum 1000. */
  recovery_ms: number;
  /** Count every error a tool returns; default false (only BREAKER_COUNTED_CODES count). */
  countAllErrors: boolean;
}

/** A state change, reported as a `circuit_state_change` event by the caller. */
export interface BreakerTransition {
  from: CircuitState;
  to: CircuitState;
}

/** `error.details` of a CIRCUIT_OPEN envelope. */
export interface CircuitOpenDetails {
  retry_after_ms: number;
  failures: number;
  /** The last counted error's message; null when none was recorded. */
  last_error: string | null;
}

/** What the gate decided for one call. */
export type GateResult =
  | { pass: true; next: BreakerState; transition?: BreakerTransition }
  | { pass: false; next: BreakerState; details: CircuitOpenDetails; transition?: BreakerTransition };

/** How a finished (or rejected) call affects its tool's breaker. */
export type BreakerOutcome = 'success' | 'counted_failure' | 'neutral';

/** A new state plus the transition it made, if any. */
export interface BreakerUpdate {
  next: BreakerState;
  transition?: BreakerTransition;
}

/** §10 defaults. */
export const DEFAULT_BREAKER_CONFIG: Readonly<BreakerConfig> = Object.freeze({
  threshold: 3,
  recovery_ms: 300_000,
  countAllErrors: false,
});

/** Smallest accepted threshold. */
export const MIN_BREAKER_THRESHOLD = 1;
/** Smallest accepted recovery time. */
export const MIN_RECOVERY_MS = 1000;

/** Fills defaults and applies the §10 minimums; a non-finite number falls back to its default. */
export function resolveBreakerConfig(config: Partial<BreakerConfig> = {}): BreakerConfig {
  const pick = (value: number | undefined, fallback: number, minimum: number): number =>
    value === undefined || !Number.isFinite(value) ? fallback : Math.max(minimum, value);
  return {
    threshold: pick(config.threshold, DEFAULT_BREAKER_CONFIG.threshold, MIN_BREAKER_THRESHOLD),
    recovery_ms: pick(config.recovery_ms, DEFAULT_BREAKER_CONFIG.recovery_ms, MIN_RECOVERY_MS),
    countAllErrors: config.countAllErrors ?? DEFAULT_BREAKER_CONFIG.countAllErrors,
  };
}

/** A breaker for a tool that has not failed yet. */
export function closedBreaker(): BreakerState {
  return { state: 'CLOSED', failures: 0, trial_in_flight: false };
}

/**
 * The OPEN→HALF_OPEN time check alone: an OPEN breaker whose recovery time has elapsed becomes HALF_OPEN with
 * its trial slot free. Used by the gate and by schema listing, so both agree on the moment a tool comes back.
 */
export function advanceBreaker(
  state: BreakerState | undefined,
  now: number,
  config: Partial<BreakerConfig> = {},
): BreakerUpdate {
  const current = state ?? closedBreaker();
  if (current.state !== 'OPEN' || !recoveryElapsed(current, now, resolveBreakerConfig(config))) {
    return { next: { ...current } };
  }
  return {
    next: { ...current, state: 'HALF_OPEN', trial_in_flight: false },
    transition: { from: 'OPEN', to: 'HALF_OPEN' },
  };
}

/** §10 gate, evaluated when a call is about to run: CLOSED passes, OPEN rejects until recovery, HALF_OPEN admits one trial. */
export function breakerGate(
  state: BreakerState | undefined,
  now: number,
  config: Partial<BreakerConfig> = {},
): GateResult {
  const resolved = resolveBreakerConfig(config);
  const { next: advanced, transition } = advanceBreaker(state, now, resolved);
  const withTransition = transition ? { transition } : {};
  switch (advanced.state) {
    case 'CLOSED':
      return { pass: true, next: advanced };
    case 'OPEN':
      return {
        pass: false,
        next: advanced,
        details: {
          retry_after_ms: resolved.recovery_ms - (now - (advanced.opened_at ?? now)),
          failures: advanced.failures,
          last_error: advanced.last_error ?? null,
        },
      };
    case 'HALF_OPEN':
      if (advanced.trial_in_flight) {
        // The trial already running decides; once it finishes the next turn sees CLOSED or a fresh OPEN timer.
        return {
          pass: false,
          next: advanced,
          details: { retry_after_ms: 0, failures: advanced.failures, last_error: advanced.last_error ?? null },
          ...withTransition,
        };
      }
      return { pass: true, next: { ...advanced, trial_in_flight: true }, ...withTransition };
  }
}

/**
 * §10 transitions on the outcome of a call that passed the gate. `lastError` is the counted error's message.
 * An OPEN breaker (a call admitted before a parallel sibling opened it) only counts the failure: its timer and
 * state are left to the HALF_OPEN trial.
 */
export function recordOutcome(
  state: BreakerState | undefined,
  outcome: BreakerOutcome,
  now: number,
  config: Partial<BreakerConfig> = {},
  lastError?: string,
): BreakerUpdate {
  const resolved = resolveBreakerConfig(config);
  const current = state ?? closedBreaker();
  const errorText = lastError ?? current.last_error;
  const failed = (failures: number): BreakerState => ({
    ...current,
    failures,
    ...(errorText === undefined ? {} : { last_error: errorText }),
  });
  switch (current.state) {
    case 'CLOSED': {
      if (outcome === 'success') return { next: closedBreaker() };
      if (outcome === 'neutral') return { next: { ...current } };
      const failures = current.failures + 1;
      if (failures < resolved.threshold) return { next: failed(failures) };
      return {
        next: { ...failed(failures), state: 'OPEN', opened_at: now, trial_in_flight: false },
        transition: { from: 'CLOSED', to: 'OPEN' },
      };
    }
    case 'HALF_OPEN': {
      if (outcome === 'success') return { next: closedBreaker(), transition: { from: 'HALF_OPEN', to: 'CLOSED' } };
      if (outcome === 'neutral') return { next: { ...current, trial_in_flight: false } };
      return {
        next: { ...failed(current.failures + 1), state: 'OPEN', opened_at: now, trial_in_flight: false },
        transition: { from: 'HALF_OPEN', to: 'OPEN' },
      };
    }
    case 'OPEN':
      return { next: outcome === 'counted_failure' ? failed(current.failures + 1) : { ...current } };
  }
}

/** Frees the HALF_OPEN trial slot of a call that was admitted but rejected before it ran (validation, permission). */
export function releaseTrial(state: BreakerState | undefined): BreakerState {
  const current = state ?? closedBreaker();
  return current.state === 'HALF_OPEN' ? { ...current, trial_in_flight: false } : { ...current };
}

/**
 * §10 outcome classification. Calls rejected before `run` (`ranTool: false`) are always neutral;
 * success and partial are successes; an error counts when its code is in BREAKER_COUNTED_CODES, or always
 * under `countAllErrors`.
 */
export function classifyOutcome(
  envelope: Pick<Envelope, 'status' | 'error'>,
  options: { ranTool: boolean; countAllErrors?: boolean },
): BreakerOutcome {
  if (!options.ranTool) return 'neutral';
  if (envelope.status !== 'error') return 'success';
  if (options.countAllErrors === true) return 'counted_failure';
  return envelope.error !== undefined && BREAKER_COUNTED_CODES.has(envelope.error.code) ? 'counted_failure' : 'neutral';
}

/** Names of the tools whose breaker is OPEN after the time check: they are left out of the schema list (§10). */
export function openTools(
  breakers: Readonly<Record<string, BreakerState>> | undefined,
  now: number,
  config: Partial<BreakerConfig> = {},
): Set<string> {
  const resolved = resolveBreakerConfig(config);
  const open = new Set<string>();
  for (const [name, state] of Object.entries(breakers ?? {})) {
    if (state.state === 'OPEN' && !recoveryElapsed(state, now, resolved)) open.add(name);
  }
  return open;
}

/** Text of a CIRCUIT_OPEN envelope (§10); `shared` names the breaker when the tool shares one (an MCP server's). */
export function circuitOpenText(name: string, failures: number, shared?: string): string {
  return shared === undefined
    ? `Tool '${name}' is temporarily disabled after ${failures} consecutive failures.`
    : `Tool '${name}' is temporarily disabled after ${failures} consecutive failures of ${shared}.`;
}

// A breaker stored without `opened_at` could otherwise stay OPEN for ever; treat it as due for a trial.
function recoveryElapsed(state: BreakerState, now: number, config: BreakerConfig): boolean {
  return state.opened_at === undefined || now - state.opened_at >= config.recovery_ms;
}
