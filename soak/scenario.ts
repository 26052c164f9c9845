// The shape every soak scenario shares: what it is given, and what it reports (one row of the table, and the figures
// docs/reliability.md records). A scenario is a module exporting one `Scenario`; soak/run.ts lists them.

/** What `npm run soak` gives every scenario. */
export interface ScenarioOptions {
  /** How many times to repeat what the scenario does. */
  rounds: number;
  /** The soak's own Temporal dev server (a scenario may start another). */
  address: string;
  /** The workflow bundle file worker processes load (see test/support/worker-process.ts). */
  bundlePath: string;
  /** Progress lines, printed to stderr. */
  log: (line: string) => void;
}

/** One measured value, as the report prints it ("time to resume, median" → "26.5 s"). */
export interface Figure {
  label: string;
  value: string;
}

/** What a scenario found over all its rounds. */
export interface ScenarioResult {
  name: string;
  /** Runs (or rounds) attempted, and how many of them met every check. */
  runs: number;
  passed: number;
  /** Side effects missing at the end, and ones applied more than once, over all runs. */
  lost: number;
  duplicated: number;
  /** What failed, and anything a reader needs to read the figures. */
  notes: string[];
  figures: Figure[];
  /** The command that reproduces this scenario alone. */
  command: string;
}

export type Scenario = (options: ScenarioOptions) => Promise<ScenarioResult>;
