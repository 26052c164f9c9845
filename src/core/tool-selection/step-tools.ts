// Workflow-safe: the tool selection of a run's steps — the candidates its profile, mode and breakers leave, the
// selection when they are more than the limit, its trace event, and what ToolSearch searches then.
import type { ToolContract } from '../../tools/define-tool.js';
import type { SchemaContext } from '../../tools/define-tool.js';
import { openTools } from '../breaker.js';
import type { AgentInput, AgentState } from '../state.js';
import { addEvent } from '../state.js';
import type { StepEnv } from '../step/step-env.js';
import type { ToolProfile } from './profiles.js';
import { AUTO_PROFILE, TOOL_PROFILES, isProfileName, matchesToolPattern, resolveProfile } from './profiles.js';
import { PROFILE_NAMES } from '../../protocol/profile-names.js';
import type { ToolSelectionState } from './select-tools.js';
import type { ToolSelectionRecord } from '../../protocol/model.js';
import { DEFAULT_MAX_TOOLS, recentTools, selectTools, selectionQuery } from './select-tools.js';
import { toolIndexOf } from '../../tools/tool-index.js';

/** The tools of one step: the names the model sees, and the selection record when they were selected. */
export interface StepTools {
  names: string[];
  selection?: ToolSelectionRecord;
}

/**
 * Resolves the run's profile into the state when its task starts (`auto` by the keyword rule on the task, once, so a
 * continued run keeps it). Returns the message the run fails with when the profile is unknown.
 */
export function startProfile(state: AgentState, input: AgentInput): string | undefined {
  const requested = input.profile;
  if (requested === undefined) return undefined;
  if (requested !== AUTO_PROFILE && !isProfileName(requested))
    return `Unknown tool profile '${requested}': one of ${[...PROFILE_NAMES, AUTO_PROFILE].join(', ')}.`;
  const resolved = resolveProfile(requested, input.task)!;
  state.profile = { name: resolved.profile.name, reason: resolved.reason };
  return undefined;
}

/** The run's profile, when it has one. */
export function runProfile(state: AgentState): ToolProfile | undefined {
  return state.profile ? TOOL_PROFILES[state.profile.name] : undefined;
}

/** True when the run's profile offers the tool; every tool without a profile, and ToolSearch always (it finds them). */
export function profileOffers(state: AgentState, contract: ToolContract): boolean {
  const profile = runProfile(state);
  return (
    profile === undefined ||
    contract.listedOnlyWithDeferredTools === true ||
    matchesToolPattern(profile.tools, contract.name)
  );
}

/** The most tools a step of the run shows: the run's own limit, else its profile's, else DEFAULT_MAX_TOOLS. */
export function toolLimit(env: Pick<StepEnv, 'state' | 'input'>): number {
  return Math.max(1, env.input.maxTools ?? runProfile(env.state)?.maxTools ?? DEFAULT_MAX_TOOLS);
}

/**
 * The registry's docs/tools.md §2 filtering for this step: mode, breakers (with their time check) and discovered
 * tools.
 */
function schemaContext(env: StepEnv, now: number): SchemaContext {
  const { state, input } = env;
  return {
    mode: input.mode,
    openTools: openTools(state.breakers, now, input.breaker ?? {}),
    discovered: new Set(state.discovered),
  };
}

/** The tools the model may see this step before any selection: §2 filtering, then the run's profile. */
export function visibleTools(env: StepEnv, now: number): ToolContract[] {
  return env.registry.visible(schemaContext(env, now)).filter((contract) => profileOffers(env.state, contract));
}

/**
 * The tools of the step being taken. Within the limit, every visible tool, exactly as without selection. Beyond it,
 * the selection (select-tools): recorded as a `tool_selection` trace event and in the state, where ToolSearch finds
 * which tools it may search and the next steps find the context they rank with.
 */
export function stepTools(env: StepEnv, now: number): StepTools {
  const { state, input, registry } = env;
  const visible = visibleTools(env, now);
  const candidates = visible.filter((contract) => contract.listedOnlyWithDeferredTools !== true);
  const limit = toolLimit(env);
  if (candidates.length <= limit) return { names: visible.map((contract) => contract.name) };
  // The finder is listed only while tools are deferred; the selection leaves tools to find as well.
  const finder = registry
    .visible({ ...schemaContext(env, now), listFinders: true })
    .find((contract) => contract.listedOnlyWithDeferredTools === true && profileOffers(state, contract));
  const memory: ToolSelectionState = (state.toolSelection ??= { context: [], lastCalled: {}, step: 0, shown: [] });
  const choice = typeof input.toolChoice === 'object' ? [input.toolChoice.name] : [];
  const selection = selectTools({
    candidates: candidates.map((contract) => contract.name),
    ...(finder ? { finder: finder.name } : {}),
    limit,
    pinned: [...(runProfile(state)?.pinned ?? []), ...choice],
    discovered: state.discovered,
    recent: recentTools(memory, state.step),
    query: selectionQuery(input.task, memory.context),
    index: toolIndexOf(registry),
    preferred: candidates
      .filter((contract) => (contract.origin ?? 'builtin') === 'builtin')
      .map((contract) => contract.name),
  })!;
  memory.step = state.step;
  memory.shown = selection.names;
  addEvent(state, 'tool_selection', now, { ...selection.record });
  return { names: selection.names, selection: selection.record };
}

/** The names shown at the current step: its selection once made, else every visible tool. */
export function shownToolNames(env: StepEnv, now: number): string[] {
  const memory = env.state.toolSelection;
  if (memory?.step === env.state.step) return [...memory.shown];
  return visibleTools(env, now).map((contract) => contract.name);
}

/**
 * What ToolSearch may return at this step: when the step's tools were selected, every tool the run may call that the
 * step did not show; with a profile and no selection, the deferred tools the profile offers. Undefined otherwise:
 * ToolSearch then searches the deferred tools as §16 describes.
 */
export function toolSearchScope(env: StepEnv): ReadonlySet<string> | undefined {
  const { state, input, registry } = env;
  const memory = state.toolSelection;
  const selecting = memory?.step === state.step;
  if (!selecting && state.profile === undefined) return undefined;
  const shown = new Set(selecting ? memory.shown : []);
  return new Set(
    registry
      .list()
      .filter(
        (contract) =>
          contract.listedOnlyWithDeferredTools !== true &&
          registry.isEnabled(contract.name) &&
          (input.mode !== 'read_only' || contract.category === 'read') &&
          profileOffers(state, contract) &&
          !shown.has(contract.name) &&
          (selecting || contract.shouldDefer === true),
      )
      .map((contract) => contract.name),
  );
}
