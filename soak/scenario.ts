// What a soak scenario reports: how many runs it made, how they ended, and the figures worth printing.

/** The outcome of one soak scenario. */
export interface ScenarioResult {
  name: string;
  runs: number;
  passed: number;
  /** Runs that never finished (stuck) or lost work. */
  lost: number;
  /** Work done twice. */
  duplicated: number;
  notes: string[];
  figures: Array<{ label: string; value: string }>;
}
