// Workflow-safe: which tools the model sees at a step when the run has more than its limit — pinned, discovered and
// recently called tools stay, the rest of the room goes to the best BM25 matches for the task and recent turns.
// A pure function of its inputs (no clock, no randomness): a replay selects the same tools.
import { matchesToolPattern } from './profiles.js';
import type { ToolIndex } from '../../tools/tool-index.js';
import type { ToolSelectionRecord } from '../../protocol/model.js';

/** Tools shown per step when neither the run nor its profile says. */
export const DEFAULT_MAX_TOOLS = 16;

/** A tool called in one of this many steps before the current one stays listed. */
export const RECENT_STEPS = 3;

/**
 * Why a tool is shown: a profile pins it (or it finds the others), ToolSearch found it, it was just used, it ranked, or
 * it filled room the ranking left (a query that matches few tools still gets the run's tools up to the limit).
 */
export type SelectionReason = 'pinned' | 'discovered' | 'recent' | 'ranked' | 'filled';

/** What a step's selection is made from. */
export interface SelectionRequest {
  /** The tools the step could show, sorted by name (the finder is not one of them). */
  candidates: readonly string[];
  /** The tool that finds the tools left out (ToolSearch): shown, and counted, whenever some are left out. */
  finder?: string;
  /** At most this many tools are shown, unless pinned, discovered and recent tools alone are more. */
  limit: number;
  /** Names and patterns of the tools always shown. */
  pinned: readonly string[];
  /** Tools ToolSearch found in this task: shown from then on. */
  discovered: readonly string[];
  /** Tools called in the last RECENT_STEPS steps. */
  recent: readonly string[];
  /** What the ranking looks for: the task and the recent turns (selectionQuery). */
  query: string;
  index: ToolIndex;
  /** Taken first when the ranking leaves room (the built-ins); the other candidates follow by name. */
  preferred?: readonly string[];
}

/** A step's tools: the names the model sees (sorted by name, as docs/tools.md §2 lists them) and the record of why. */
export interface ToolSelection {
  names: string[];
  record: ToolSelectionRecord;
}

/** The step's tools, or undefined when every candidate fits within the limit (then every one is shown). */
export function selectTools(request: SelectionRequest): ToolSelection | undefined {
  const { candidates, finder, limit } = request;
  if (candidates.length <= limit) return undefined;
  const offered = new Set(candidates);
  const shown = new Set<string>();
  const take = (names: Iterable<string>): string[] => {
    const taken: string[] = [];
    for (const name of names) {
      if (!offered.has(name) || shown.has(name)) continue;
      shown.add(name);
      taken.push(name);
    }
    return taken;
  };
  const pinned = [
    ...(finder !== undefined ? [finder] : []),
    ...take(candidates.filter((name) => matchesToolPattern(request.pinned, name))),
  ];
  if (finder !== undefined) shown.add(finder);
  const discovered = take([...request.discovered].sort());
  const recent = take([...request.recent].sort());
  const room = limit - shown.size;
  const rest = new Set(candidates.filter((name) => !shown.has(name)));
  const ranked =
    room > 0 ? take(request.index.rank(request.query, { among: rest, limit: room }).map((tool) => tool.name)) : [];
  // A task in words no tool uses ("look at the notes") must not leave the model with ToolSearch alone.
  const filled: string[] = [];
  for (const name of [...(request.preferred ?? []), ...candidates]) {
    if (shown.size >= limit) break;
    filled.push(...take([name]));
  }
  return {
    names: [...shown].sort(compareNames),
    record: { candidates: candidates.length, limit, pinned, discovered, recent, ranked, filled },
  };
}

/** At most this many characters of the task go into a ranking query. */
const MAX_TASK_CHARS = 4_000;

/** The ranking query of a step: the task, then the recent turns' text (the later steps' context). */
export function selectionQuery(task: string, context: readonly string[]): string {
  return [task.slice(0, MAX_TASK_CHARS), ...context].join('\n');
}

/** What a run's selection keeps between steps, in the agent state. */
export interface ToolSelectionState {
  /** The last assistant texts and the names of the tools called, oldest first, at most MAX_CONTEXT_ENTRIES. */
  context: string[];
  /** Tool name → the last step it was called in. */
  lastCalled: Record<string, number>;
  /** The last step whose tools were selected, and the names it showed: ToolSearch searches the others. */
  step: number;
  shown: string[];
}

/** How many recent texts the query keeps. */
export const MAX_CONTEXT_ENTRIES = 6;

/** How much of one assistant text the query keeps. */
const MAX_CONTEXT_CHARS = 500;

/** A model turn joins the query context: what the assistant wrote, and the tools it called. */
export function noteTurn(selection: ToolSelectionState, content: string | null, toolNames: readonly string[]): void {
  const entries = [
    ...(content?.trim() ? [content.trim().slice(0, MAX_CONTEXT_CHARS)] : []),
    ...(toolNames.length > 0 ? [toolNames.join(' ')] : []),
  ];
  if (entries.length === 0) return;
  selection.context = [...selection.context, ...entries].slice(-MAX_CONTEXT_ENTRIES);
}

/** Tools called at `step` stay listed for the next RECENT_STEPS steps. */
export function noteCalls(selection: ToolSelectionState, toolNames: readonly string[], step: number): void {
  for (const name of toolNames) selection.lastCalled[name] = step;
  // Entries too old to matter are dropped, so the record stays as small as the recent set.
  for (const [name, last] of Object.entries(selection.lastCalled))
    if (last < step - RECENT_STEPS) delete selection.lastCalled[name];
}

/** The tools called in the RECENT_STEPS steps before `step`. */
export function recentTools(selection: ToolSelectionState, step: number): string[] {
  return Object.entries(selection.lastCalled)
    .filter(([, last]) => last >= step - RECENT_STEPS && last < step)
    .map(([name]) => name);
}

function compareNames(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
