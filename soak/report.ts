// The soak's part of docs/reliability.md: the section between its two markers is replaced on every run (appended
// when the markers are missing); everything else in the file is written by hand and left as it is.
import { readFile, writeFile } from 'node:fs/promises';
import * as prettier from 'prettier';
import type { ScenarioResult } from './scenario.js';

const BEGIN = '<!-- soak:begin (written by npm run soak) -->';
const END = '<!-- soak:end -->';

export interface SoakRun {
  date: string;
  machine: string;
  loadAverage: string;
  rounds: number;
  command: string;
  wallMs: number;
  results: ScenarioResult[];
}

/** The results as a plain-text table for the terminal. */
export function renderTable(results: ScenarioResult[]): string {
  const rows = results.map((result) => [
    result.name,
    `${result.passed}/${result.runs}`,
    String(result.lost),
    String(result.duplicated),
    result.figures.map((figure) => `${figure.label}: ${figure.value}`).join('; '),
  ]);
  const header = ['scenario', 'passed', 'lost', 'twice', 'figures'];
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** The markdown section: when, where, the command, then one row per scenario and its figures. */
export function renderSection(run: SoakRun): string {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const rows = run.results.map((result) =>
    [
      result.name,
      `${result.passed} of ${result.runs}`,
      String(result.lost),
      String(result.duplicated),
      result.figures.map((figure) => `${figure.label}: ${figure.value}`).join('<br>'),
      result.notes.length ? result.notes.join('<br>') : '–',
      `\`${result.command}\``,
    ]
      .map(cell)
      .join(' | '),
  );
  return [
    BEGIN,
    '## Faults and load, measured',
    '',
    `Last run ${run.date} on ${run.machine} (load average ${run.loadAverage} at the start), ${run.rounds} round(s) of each scenario, ` +
      `${Math.round(run.wallMs / 60_000)} min in all: \`${run.command}\`. Each fault round is a fresh run on worker processes ` +
      'against a real Temporal dev server; it passes when the run completes with the right answer, every file holds ' +
      'exactly what it should (no edit lost or applied twice), no temp file or process of the run is left, and the run ' +
      'calls the model again after the fault. The time to resume runs from the fault to that next model call (the ' +
      'interrupted activity done or given up on; for the MCP call, to the call starting again on the next worker): a ' +
      'killed worker is noticed when the heartbeats of the activity it held stop (3 s heartbeat timeout for model ' +
      'calls, commands, writes and MCP calls), the retry starts 500 ms (model) or 200 ms (tool) later, and the step after it waits up to 1 s ' +
      "for the dead worker's sticky queue; the replacement worker is already polling; a dropped stream is retried " +
      'after 500 ms.',
    '',
    '| scenario | passed | lost | applied twice | figures | notes | reproduce |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
    END,
  ].join('\n');
}

/** Replaces the soak section of `file` (or appends it), then formats the file with Prettier. */
export async function writeSection(file: string, section: string): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => '# Reliability\n');
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  const updated =
    begin >= 0 && end > begin
      ? `${text.slice(0, begin)}${section}${text.slice(end + END.length)}`
      : `${text.trimEnd()}\n\n${section}\n`;
  // Formatted as `npm run lint` wants the whole file (the tables aligned), so a soak run leaves it clean.
  const options = (await prettier.resolveConfig(file)) ?? {};
  await writeFile(file, await prettier.format(updated, { ...options, filepath: file }));
}
