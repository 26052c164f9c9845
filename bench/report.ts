// docs/benchmarks.md, written by `npm run bench`: one block per section, each with the machine and load it was
// measured under and the command that measures it again. A run replaces the blocks of the sections it ran and keeps
// the others, so running one section does not erase the rest.
import { readFile, writeFile } from 'node:fs/promises';
import type { BenchRow } from './measure.js';
import { formatRatio } from './measure.js';

/** What one section produced in this run. */
export interface SectionReport {
  id: string;
  name: string;
  rows: BenchRow[];
  /** Set when the section could not be measured. */
  error?: string;
  machine: string;
  loadBefore: string;
  loadAfter: string;
  finishedAt: Date;
  ms: number;
}

/** The document's fixed parts: its introduction and the heading (with any text) placed before a group of sections. */
export interface ReportLayout {
  /** Section ids in document order. */
  order: readonly string[];
  intro: string;
  /** Markdown placed before the section it is keyed by and those after it up to the next heading, if any of them has a block. */
  headings: Readonly<Record<string, string>>;
}

const BLOCK = /<!-- bench:begin (\S+) -->\n[\s\S]*?<!-- bench:end \1 -->/g;

/** Writes `file`, replacing the blocks of `reports` and keeping the other blocks it already holds. */
export async function writeReport(
  file: string,
  layout: ReportLayout,
  reports: readonly SectionReport[],
): Promise<void> {
  const previous = await readFile(file, 'utf8').catch(() => '');
  const blocks = new Map<string, string>();
  for (const match of previous.matchAll(BLOCK)) blocks.set(match[1]!, match[0]);
  for (const report of reports) blocks.set(report.id, renderBlock(report));
  const parts = [layout.intro.trim()];
  // A heading starts a group that runs to the next heading; a group without any block is left out.
  let heading: string | undefined;
  let group: string[] = [];
  const closeGroup = () => {
    if (group.length > 0) parts.push(...(heading ? [heading] : []), ...group);
  };
  for (const id of layout.order) {
    if (layout.headings[id]) {
      closeGroup();
      heading = layout.headings[id].trim();
      group = [];
    }
    const block = blocks.get(id);
    if (block) group.push(block);
  }
  closeGroup();
  await writeFile(file, `${parts.join('\n\n')}\n`);
}

function renderBlock(report: SectionReport): string {
  const lines = [
    `<!-- bench:begin ${report.id} -->`,
    `### ${report.name}`,
    '',
    `Measured ${report.finishedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC in ${seconds(report.ms)} on ${report.machine}; ` +
      `load average (1, 5, 15 min) ${report.loadBefore} before, ${report.loadAfter} after. ` +
      `Reproduce: \`npm run bench -- ${report.id}\`.`,
    '',
  ];
  if (report.error) {
    lines.push(`Not measured: ${report.error.split('\n')[0]}`);
  } else {
    lines.push('| measurement | ours | baseline | ours/baseline | per-run range |', '|---|---:|---:|---:|---:|');
    for (const row of report.rows) {
      const range = `${ratioText(row.ratioRange[0])}–${ratioText(row.ratioRange[1])}`;
      lines.push(`| ${cell(row.measurement)} | ${row.ours} | ${row.baseline} | ${ratioText(row.ratio)} | ${range} |`);
    }
    lines.push('', ...report.rows.map((row) => `- **${cell(row.measurement)}**: ${row.conclusion}`));
  }
  lines.push(`<!-- bench:end ${report.id} -->`);
  return lines.join('\n');
}

// Byte and replay ratios are far below 1, where two decimals would round them to 0.01×.
function ratioText(ratio: number): string {
  return ratio > 0 && ratio < 0.1 ? `${ratio.toPrecision(2)}×` : formatRatio(ratio);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function seconds(ms: number): string {
  return ms < 60_000
    ? `${(ms / 1000).toFixed(1)} s`
    : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
