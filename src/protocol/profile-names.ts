// Workflow-safe: the names of the tool profiles a run may name (`--profile`), which tool contracts place themselves in
// and the run's state records.

/** The profiles a run may name. */
export const PROFILE_NAMES = ['read-only', 'code-edit', 'ops'] as const;

/** A profile's name. */
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** What `--profile` accepts besides a profile: `auto`, the keyword rule on the task. */
export const AUTO_PROFILE = 'auto';
