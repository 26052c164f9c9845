// Workflow-safe: the confirmation levels of docs/tools.md §4, which tools declare, the permission layer decides by and
// Bash's classification reports.

/** Confirmation levels of §4, most severe last in `LEVEL_SEVERITY`. */
export type RiskLevel = 'read_only' | 'write' | 'unclassified' | 'network_write' | 'destructive' | 'forbidden';
