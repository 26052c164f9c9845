// Node: what `status` shows of a run's place in a tree of sub-agents: its children (from its live state, or from the
// visibility store once it is closed), its tree's spending beside its own, and for a child whose sub-agent it is.
import type { ChildRecord, SubAgentLink } from '../protocol/sub-agents.js';
import { pathUnder } from '../protocol/sub-agent-ids.js';
import type { RunStatus, UsageLedger } from '../protocol/run-report.js';
import { visibleText } from '../core/terminal-text.js';
import { color, costCell } from './output.js';

/** One child as `status --json` prints it. */
export interface ChildRow {
  segment: string;
  workflowId: string;
  status: RunStatus;
  /** The child's own step (null: it has not reported one). */
  step: number | null;
  /** What the child and its descendants spent (null: not reported). */
  costUsd: number | null;
  totalTokens: number | null;
  /** The Task call's description (null: not known, e.g. a closed run's child listed by the visibility store). */
  description: string | null;
  /** The Task call that started it (known while the parent runs). */
  callId?: string;
  profile?: string;
  /** How many approvals the child and its descendants wait for. */
  pendingApprovals: number;
}

/** A child as its parent's live state records it. */
export function childRowOf(record: ChildRecord): ChildRow {
  return {
    segment: record.segment,
    workflowId: record.workflowId,
    status: record.status,
    step: record.childStep,
    costUsd: record.usage.costUsd,
    totalTokens: record.usage.totalTokens,
    description: record.description,
    callId: record.callId,
    profile: record.profile,
    pendingApprovals: record.pending.length,
  };
}

/** Where a sub-agent sits, as `status` prints it. */
export interface ParentRow {
  rootWorkflowId: string;
  parentWorkflowId: string;
  /** Its segments under the root: the prefix of its approvals' ids there (`task-1-0/task-2-1`). */
  path: string;
}

export function parentRowOf(link: SubAgentLink): ParentRow {
  return { rootWorkflowId: link.rootWorkflowId, parentWorkflowId: link.parentWorkflowId, path: link.path };
}

/**
 * A child's place from the server's record of it (its parent and root execution), for a closed child whose state is
 * not queried: its path is its workflow id after the root's.
 */
export function parentRowFromIds(workflowId: string, parentWorkflowId: string, rootWorkflowId: string): ParentRow {
  return { rootWorkflowId, parentWorkflowId, path: pathUnder(workflowId, rootWorkflowId) };
}

/** The `tokens` and `cost` lines, and a `tree` line (its own and its sub-agents') for a run that had any. */
export function usageLines(own: UsageLedger, tree: UsageLedger | undefined): string[] {
  return [
    `  tokens      ${own.totalTokens} (${own.modelCalls} model calls)`,
    `  cost        ${costCell(own.costUsd)}`,
    ...(tree
      ? [
          `  tree        ${tree.totalTokens} tokens, ${costCell(tree.costUsd)} (${tree.modelCalls} model calls): this run and its sub-agents`,
        ]
      : []),
  ];
}

/** The `sub-agents` block: one aligned line per child, then how to read one. */
export function childLines(children: ChildRow[]): string[] {
  if (children.length === 0) return [];
  const cells = children.map((child) => [
    visibleText(child.segment),
    child.status,
    child.step === null ? 'step -' : `step ${child.step}`,
    costCell(child.costUsd),
    child.totalTokens === null ? '-' : `${child.totalTokens} tokens`,
    child.pendingApprovals > 0 ? `${child.pendingApprovals} pending` : '',
    visibleText((child.description ?? '').split('\n')[0]!).slice(0, 60),
  ]);
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((line) => line[column]!.length)));
  const counts = new Map<string, number>();
  for (const child of children) counts.set(child.status, (counts.get(child.status) ?? 0) + 1);
  const summary = [...counts.entries()].map(([status, count]) => `${count} ${status}`).join(', ');
  return [
    `  sub-agents  ${children.length} (${summary})`,
    ...cells.map((line, index) => {
      const text = line
        .map((cell, column) => (column === line.length - 1 ? cell : cell.padEnd(widths[column]!)))
        .join('  ')
        .replace(/ +$/, '');
      return `    ${text}  ${color.dim(visibleText(children[index]!.workflowId))}`;
    }),
  ];
}

/** The `sub-agent` line of a child: whose it is, and where its approvals are decided. */
export function parentLines(parent: ParentRow): string[] {
  const root = visibleText(parent.rootWorkflowId);
  return [
    `  sub-agent   of ${visibleText(parent.parentWorkflowId)} (as ${visibleText(parent.path)})`,
    `  approvals   decided on the root: durable-agent approve ${root} ${visibleText(parent.path)}/CALL`,
  ];
}

/** The visibility query for a run's children; undefined for an id a query string cannot quote plainly. */
export function childrenQuery(workflowId: string): string | undefined {
  if (/['"\\\n]/.test(workflowId)) return undefined;
  return `ParentWorkflowId = '${workflowId}'`;
}

/** A listed child execution, as either reading of the visibility store gives it. */
export interface ListedChild {
  workflowId: string;
  status: RunStatus;
  startTime: number;
  open: boolean;
  step: unknown;
  costUsd: unknown;
  pendingApprovals: unknown;
  task: unknown;
}

/** A closed run's children from the visibility store: one row per child (its current run), oldest first. */
export function childRowsFromListing(parentWorkflowId: string, listed: ListedChild[]): ChildRow[] {
  const current = new Map<string, ListedChild>();
  for (const child of [...listed].sort((left, right) => left.startTime - right.startTime)) {
    if (current.get(child.workflowId)?.open) continue;
    current.set(child.workflowId, child);
  }
  const numberOrNull = (value: unknown) => (typeof value === 'number' ? value : null);
  return [...current.values()].map((child) => ({
    segment: pathUnder(child.workflowId, parentWorkflowId),
    workflowId: child.workflowId,
    status: child.status,
    step: numberOrNull(child.step),
    costUsd: numberOrNull(child.costUsd),
    totalTokens: null,
    description: typeof child.task === 'string' ? child.task : null,
    pendingApprovals: numberOrNull(child.pendingApprovals) ?? 0,
  }));
}
