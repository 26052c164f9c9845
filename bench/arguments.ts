// Argument repair cost: parseArguments + fixArguments on well-formed JSON vs the same arguments as models mangle them
// (trailing commas, single quotes, code fences).
import { fixArguments, parseArguments } from '../src/core/arguments/index.js';
import { bash, editFile, glob, grep, readFile } from '../src/tools/index.js';
import type { ToolContract } from '../src/tools/define-tool.js';
import type { BenchRow } from './measure.js';
import { compareTimes, formatMs } from './measure.js';

const CALLS = 1000;
const REPETITIONS = 40;
/** A single call takes microseconds, too little to time on its own; calls are timed in batches of this size. */
const BATCH_SIZE = 50;

const [grepTool, globTool, readFileTool, bashTool, editFileTool] = [grep, glob, readFile, bash, editFile].map(
  (contract) => contract as unknown as ToolContract,
) as [ToolContract, ToolContract, ToolContract, ToolContract, ToolContract];

interface ArgumentCase {
  contract: ToolContract;
  raw: string;
}

/** What parse + fix made of one argument string: the arguments and repair count, or nothing when rejected. */
type Outcome = { normalized: Record<string, unknown>; repairs: number } | undefined;

// Arguments as a model would send them to the five file and shell tools. No value holds a quote character, so the
// single-quoted rendering below says exactly what the JSON says.
function argumentsFor(index: number): { contract: ToolContract; value: Record<string, unknown> } {
  const file = `src/module-${index % 37}/file-${index}.ts`;
  switch (index % 5) {
    case 0:
      return {
        contract: grepTool,
        value: { pattern: `function\\s+name${index}`, path: 'src', glob: '*.ts', limit: 50 + (index % 100) },
      };
    case 1:
      return { contract: globTool, value: { pattern: `src/**/*-${index % 10}.ts`, include_hidden: index % 2 === 0 } };
    case 2:
      return { contract: readFileTool, value: { path: file, offset: 1 + (index % 400), limit: 200 } };
    case 3:
      return {
        contract: bashTool,
        value: { command: `npx vitest run test/area-${index % 13}`, timeout_ms: 60_000, description: 'run tests' },
      };
    default:
      return {
        contract: editFileTool,
        value: {
          path: file,
          old_string: `const value = ${index};\n  return value;`,
          new_string: `const value = ${index + 1};\n  return value;`,
        },
      };
  }
}

function singleQuoted(value: Record<string, unknown>): string {
  const quote = (text: string): string => `'${JSON.stringify(text).slice(1, -1)}'`;
  const entries = Object.entries(value).map(
    ([key, item]) => `${quote(key)}: ${typeof item === 'string' ? quote(item) : JSON.stringify(item)}`,
  );
  return `{${entries.join(', ')}}`;
}

/** The i-th malformed rendering: one of the mistakes models make, or two of them together. */
function malformed(value: Record<string, unknown>, index: number): string {
  switch (index % 4) {
    case 0:
      return JSON.stringify(value).replace(/}$/, ',}');
    case 1:
      return singleQuoted(value);
    case 2:
      return `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;
    default:
      return `\`\`\`json\n${singleQuoted(value).replace(/}$/, ', }')}\n\`\`\``;
  }
}

function parseAndFix(argumentCase: ArgumentCase): Outcome {
  const parsed = parseArguments(argumentCase.raw, { toolName: argumentCase.contract.name });
  if (!parsed.ok) return undefined;
  const fixed = fixArguments(argumentCase.contract, parsed.value);
  return fixed.ok ? { normalized: fixed.normalized, repairs: parsed.repairs.length + fixed.repairs.length } : undefined;
}

function batchesOf<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}

/** Per-call time of parse + fix on CALLS malformed vs CALLS valid argument strings. */
export async function benchArguments(): Promise<BenchRow> {
  const valid: ArgumentCase[] = [];
  const broken: ArgumentCase[] = [];
  for (let index = 0; index < CALLS; index++) {
    const { contract, value } = argumentsFor(index);
    valid.push({ contract, raw: JSON.stringify(value) });
    broken.push({ contract, raw: malformed(value, index) });
  }
  // Each batch of malformed strings is timed right next to the valid strings of the same arguments.
  const times = await compareTimes(
    batchesOf(
      broken.map((brokenCase, index) => [brokenCase, valid[index]!] as const),
      BATCH_SIZE,
    ),
    (batch) => batch.map(([brokenCase]) => parseAndFix(brokenCase)),
    (batch) => batch.map(([, validCase]) => parseAndFix(validCase)),
    { repetitions: REPETITIONS, warmups: 3 },
  );
  // The cost comparison holds only if each malformed string is repaired to exactly the arguments its valid twin
  // carries, and the valid strings need no repair at all.
  const brokenOutcomes = times.oursResults.flat();
  const validOutcomes = times.baselineResults.flat();
  const faithful = brokenOutcomes.filter((outcome, index) => {
    const twin = validOutcomes[index];
    const sameArguments = JSON.stringify(outcome?.normalized) === JSON.stringify(twin?.normalized);
    return outcome !== undefined && outcome.repairs > 0 && sameArguments;
  }).length;
  const untouched = validOutcomes.filter((outcome) => outcome?.repairs === 0).length;
  const oursPerCall = times.ours / CALLS;
  const baselinePerCall = times.baseline / CALLS;
  return {
    measurement: `Args: ${CALLS} malformed vs ${CALLS} valid, per call`,
    ours: formatMs(oursPerCall),
    baseline: formatMs(baselinePerCall),
    ratio: times.ratio,
    ratioRange: times.ratioRange,
    conclusion:
      `repair adds ${formatMs(oursPerCall - baselinePerCall)} per call, nothing next to a model round trip ` +
      `(${faithful}/${CALLS} malformed strings repaired to their valid twin's arguments, ` +
      `${untouched}/${CALLS} valid ones accepted without repair).`,
  };
}
