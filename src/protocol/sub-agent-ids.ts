// Workflow-safe: how a sub-agent's workflow id is made and read. A child's id is its parent's id, a slash and its
// segment, so its place in the tree can be read off the id alone (plain functions: the CLI imports them without the
// workflow package).

/** The segment of a Task call's child under its parent: the step and the call's place in it. */
export function childSegment(step: number, index: number): string {
  return `task-${step}-${index}`;
}

/**
 * A sub-agent's id as seen from one of its ancestors: its segments after the ancestor's id (`task-1-0/task-2-1` for
 * `ROOT/task-1-0/task-2-1` under `ROOT`), or the whole id when it is not under that ancestor.
 */
export function pathUnder(workflowId: string, ancestorId: string): string {
  return workflowId.startsWith(`${ancestorId}/`) ? workflowId.slice(ancestorId.length + 1) : workflowId;
}
