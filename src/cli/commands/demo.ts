// Node: `demo`: run's task on a copy of examples/demo/project, then the project's tests as the proof.
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Config } from '../../config.js';
import { EXIT } from '../exit-codes.js';
import { visibleLines } from '../../core/terminal-text.js';
import { color, log } from '../output.js';
import { runTask } from '../run-task.js';
import { parseCommandLine } from '../option-table.js';
import { demoOptions } from '../options/run.js';

const demoRoot = fileURLToPath(new URL('../../../examples/demo/', import.meta.url));

const task =
  'The tests of this project fail. Find the bug, fix it with the smallest correct change, and run the tests to confirm.';

/** `demo`: the main job, on a copy of the example. */
export async function demoCommand(argv: string[], config: Config): Promise<number> {
  const { values } = parseCommandLine(demoOptions, argv);
  const workspace = await mkdtemp(join(tmpdir(), 'durable-agent-demo-'));
  await cp(join(demoRoot, 'project'), workspace, { recursive: true });
  // The scripted model speaks every provider's API, so `--provider` runs the demo through that provider's adapter.
  const real = Boolean(process.env.OPENAI_API_KEY) && values.provider === undefined;
  log(`${color.bold('demo')} workspace: ${workspace} (a copy of examples/demo/project)`);
  log(
    real
      ? 'model: the real model from OPENAI_API_KEY'
      : `model: scripted (examples/demo/script.json) through the ${values.provider ?? 'openai'} API; set OPENAI_API_KEY to use a real model`,
  );
  const modelFlags = real
    ? ['--provider', 'openai']
    : ['--provider', values.provider ?? 'scripted', '--script', join(demoRoot, 'script.json')];
  // The scripted turns are written as text-protocol answers to a run that offers its tools in the prompt.
  const protocolFlags = values['tool-protocol'] === undefined ? [] : ['--tool-protocol', values['tool-protocol']];
  const exitCode = await runTask(
    [
      '--cwd',
      workspace,
      '--ask',
      'deny',
      '--max-steps',
      '20',
      ...(values.json ? ['--json'] : []),
      ...modelFlags,
      ...protocolFlags,
      task,
    ],
    config,
  );
  if (exitCode !== EXIT.finished) return exitCode;
  const check = await execa('node', ['--test'], { cwd: workspace, reject: false, all: true });
  if (check.exitCode === 0) {
    log(color.green(`verified: the tests now pass in ${workspace}`));
    return EXIT.finished;
  }
  // The tests ran the project's code as the model left it: their output is shown, never acted on.
  log(color.red(`the run finished but the tests still fail in ${workspace}:\n${visibleLines(check.all ?? '')}`));
  return EXIT.failed;
}
