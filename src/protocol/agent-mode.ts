// Workflow-safe: the run's mode (docs/tools.md §4), chosen when it starts: every tool, or only the tools that read.

/** Tool exposure mode (§4). */
export type AgentMode = 'default' | 'read_only';
