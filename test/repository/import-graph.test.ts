// The import-graph rules of `npm run lint` (.dependency-cruiser.cjs), run on small planted trees: each rule must
// refuse the arrow it names, type-only imports included, and pass the arrows the layout allows.
import { execa } from 'execa';
import { mkdtemp, mkdir, rm, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const depcruise = path.join(repository, 'node_modules/.bin/depcruise');
let tree: string | undefined;

afterEach(async () => {
  if (tree) await rm(tree, { recursive: true, force: true });
  tree = undefined;
});

/** Lays out `files` (path -> source) beside the project's rules and returns the violations depcruise reports. */
async function violations(files: Record<string, string>): Promise<string[]> {
  tree = await mkdtemp(path.join(tmpdir(), 'import-graph-'));
  await copyFile(path.join(repository, '.dependency-cruiser.cjs'), path.join(tree, '.dependency-cruiser.cjs'));
  await writeFile(
    path.join(tree, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  );
  for (const [file, source] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(tree, file)), { recursive: true });
    await writeFile(path.join(tree, file), source);
  }
  const result = await execa(depcruise, ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd: tree,
    reject: false,
  });
  const report = JSON.parse(result.stdout) as { summary: { violations: { rule: { name: string } }[] } };
  return report.summary.violations.map((violation) => violation.rule.name).sort();
}

describe('the import graph', () => {
  it('allows the arrows of the layout: Node side -> workflows -> core -> tools -> protocol', async () => {
    expect(
      await violations({
        'src/protocol/model.ts': 'export type Turn = { text: string };\n',
        'src/tools/registry.ts': "import type { Turn } from '../protocol/model.js';\nexport type T = Turn;\n",
        'src/core/rule.ts': "import type { T } from '../tools/registry.js';\nexport const rule = (t: T) => t;\n",
        'src/workflows/agent.ts': "import { rule } from '../core/rule.js';\nexport const agent = rule;\n",
        'src/activities/run.ts': "import { agent } from '../workflows/agent.js';\nexport const run = agent;\n",
      }),
    ).toEqual([]);
  });

  it('refuses a circle of two files', async () => {
    expect(
      await violations({
        'src/core/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
        'src/core/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      }),
    ).toEqual(['no-circular']);
  });

  it('refuses a type-only import of the Node side from the workflow side', async () => {
    expect(
      await violations({
        'src/activities/index.ts': 'export interface Activities { run(): Promise<void> }\n',
        'src/workflows/proxies.ts':
          "import type { Activities } from '../activities/index.js';\nexport type A = Activities;\n",
      }),
    ).toEqual(['workflow-side-stays-workflow-safe']);
  });

  it('refuses the inner arrows that run back: protocol -> tools, tools -> core, core -> workflows', async () => {
    expect(
      await violations({
        'src/protocol/model.ts': "import type { C } from '../tools/contract.js';\nexport type M = C;\n",
        'src/tools/contract.ts': "import type { R } from '../core/rule.js';\nexport type C = R;\n",
        'src/core/rule.ts': "import type { W } from '../workflows/agent.js';\nexport type R = W;\n",
        'src/workflows/agent.ts': 'export type W = string;\n',
      }),
    ).toEqual(['core-imports-only-protocol-and-tools', 'protocol-imports-nothing', 'tools-import-only-protocol']);
  });

  it('refuses a command that imports another command', async () => {
    expect(
      await violations({
        'src/cli/commands/run.ts': 'export const run = 1;\n',
        'src/cli/commands/fork.ts': "import { run } from './run.js';\nexport const fork = run;\n",
      }),
    ).toEqual(['no-command-imports-another']);
  });
});
