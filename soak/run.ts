// `npm run soak`: every fault scenario several times, then the load, against one Temporal dev server of its own;
// prints a table and writes the figures to docs/reliability.md. Exits 1 when any run failed a check.
//
//   npm run soak -- [--rounds N] [--only <start of a scenario id>…]
//
// A new scenario is a module exporting a `Scenario` (soak/scenario.ts) and one line in SCENARIOS.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeMachine, loadAverage } from '../bench/machine.js';
import { fuzzSoakScenario } from './fuzz.js';
import { startTestTemporalServer } from '../test/support/temporal-server.js';
import { writeWorkflowBundle } from '../test/support/worker-process.js';
import {
  commandKillScenario,
  fileWriteKillScenario,
  mcpCallKillScenario,
  modelCallKillScenario,
  serverRestartScenario,
  streamDropScenario,
} from './faults.js';
import { loadScenario } from './load.js';
import { storeDiskFullScenario, storeOutageScenario } from './store-faults.js';
import { renderSection, renderTable, writeSection } from './report.js';
import type { Scenario, ScenarioResult } from './scenario.js';

const SCENARIOS: { id: string; run: Scenario }[] = [
  { id: 'fault-model-call', run: modelCallKillScenario },
  { id: 'fault-file-write', run: fileWriteKillScenario },
  { id: 'fault-command', run: commandKillScenario },
  { id: 'fault-mcp-call', run: mcpCallKillScenario },
  { id: 'fault-server-restart', run: serverRestartScenario },
  { id: 'fault-stream-drop', run: streamDropScenario },
  { id: 'fault-store-outage', run: storeOutageScenario },
  { id: 'fault-store-disk-full', run: storeDiskFullScenario },
  { id: 'load', run: loadScenario },
  { id: 'fuzz', run: fuzzSoakScenario },
];

const DEFAULT_ROUNDS = 3;
const report = fileURLToPath(new URL('../docs/reliability.md', import.meta.url));

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { rounds: { type: 'string' }, only: { type: 'string', multiple: true } },
  });
  const rounds = values.rounds === undefined ? DEFAULT_ROUNDS : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds wants a positive integer, not ${values.rounds}`);
  const only = values.only ?? [];
  const selected = SCENARIOS.filter(({ id }) => only.length === 0 || only.some((prefix) => id.startsWith(prefix)));
  if (selected.length === 0)
    throw new Error(`no scenario matches ${only.join(', ')}; ids: ${SCENARIOS.map(({ id }) => id).join(', ')}`);

  const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);
  const started = performance.now();
  const startLoad = loadAverage();
  const server = await startTestTemporalServer({ ui: false, log: (line) => log(`temporal: ${line}`) });
  const directory = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-soak-'));
  const results: ScenarioResult[] = [];
  try {
    const bundlePath = await writeWorkflowBundle(directory);
    for (const scenario of selected) {
      log(`${scenario.id}: ${rounds} round(s)`);
      results.push(await scenario.run({ rounds, address: server.address, bundlePath, log }));
    }
  } finally {
    await server.stop();
    await rm(directory, { recursive: true, force: true });
  }
  process.stdout.write(`${renderTable(results)}\n`);
  const command = ['npm run soak', ...(values.rounds ? ['--', `--rounds ${rounds}`] : [])].join(' ');
  if (only.length === 0) {
    await writeSection(
      report,
      renderSection({
        date: new Date().toISOString().slice(0, 10),
        machine: describeMachine(),
        loadAverage: startLoad,
        rounds,
        command,
        wallMs: performance.now() - started,
        results,
      }),
    );
    log(`wrote ${path.relative(process.cwd(), report)}`);
  } else {
    log('a partial run (--only): docs/reliability.md left as it is');
  }
  return results.every((result) => result.passed === result.runs && result.lost + result.duplicated === 0) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(2);
  },
);
