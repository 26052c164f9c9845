// Workflow-safe: the run's mode (C.4), chosen when it starts: every tool, or only the tools that read.

/** Tool exposure mode (C.4). */
export type AgentMode = 'default' | 'read_only';
