// Workspace checkpoints (docs/checkpoints.md): a 10,000-file workspace checkpointed with one file changed against
// none changed and against `git add -A && git write-tree` on the same tree; the store bytes one changed 4 KB file
// costs; rewinding a 100-file change against `git checkout -- .` doing the same.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { createCheckpointer } from '../src/activities/checkpoint/checkpointer.js';
import { createDirectoryStore } from '../src/store/directory-store.js';
import { restoreWorkspace } from '../src/cli/workspace-files.js';
import { formatBytes } from './bytes.js';
import type { BenchRow } from './measure.js';
import { compareTimes, formatMs, median, timeMs } from './measure.js';

// 10,000 files laid out as a project is: 25 top directories of 20 modules of 20 files.
const TOP_DIRECTORIES = 25;
const MODULES = 20;
const FILES_PER_MODULE = 20;
const FILE_BYTES = 4096;
const REWOUND_FILES = 100;

export async function benchCheckpoints(options: { quick: boolean }): Promise<BenchRow[]> {
  const repetitions = options.quick ? 3 : 11;
  const root = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-bench-checkpoints-'));
  try {
    const workspace = path.join(root, 'workspace');
    const files = await makeWorkspace(workspace);
    await execa('git', ['init', '-q', workspace]);
    await execa('git', ['add', '-A'], { cwd: workspace });
    await execa('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-qm', 'files'], {
      cwd: workspace,
    });
    const storeDirectory = path.join(root, 'store');
    const store = createDirectoryStore(storeDirectory);
    const checkpointer = createCheckpointer(store);
    const checkpoint = () => checkpointer.checkpoint(workspace);
    await checkpoint(); // the worker's first checkpoint reads every file; the rest follow its stat cache
    let edits = 0;
    // Dated in the past (a different second each time), as an edit is by the next checkpoint: not "racily clean".
    const changeOne = async () => {
      const file = files[edits++ % files.length]!;
      await writeFile(file, randomBytes(FILE_BYTES / 2).toString('hex'));
      const past = new Date(Date.now() - 60_000 - edits * 1000);
      await utimes(file, past, past);
    };

    const idle = await compareTimes(
      [0],
      async () => {
        await changeOne();
        return (await checkpoint()).hashed;
      },
      async () => (await checkpoint()).hashed,
      { repetitions },
    );
    const git = await compareTimes(
      [0],
      async () => {
        await changeOne();
        await checkpoint();
      },
      async () => {
        await changeOne();
        await execa('git', ['add', '-A'], { cwd: workspace });
        await execa('git', ['write-tree'], { cwd: workspace });
      },
      { repetitions },
    );

    const before = await storeBytes(storeDirectory);
    await changeOne();
    await checkpoint();
    const perCheckpoint = (await storeBytes(storeDirectory)) - before;

    const rewind = await rewindTimes(store, workspace, files, repetitions);

    const total = TOP_DIRECTORIES * MODULES * FILES_PER_MODULE;
    return [
      {
        measurement: `Checkpoint of ${total.toLocaleString('en')} files, 1 changed ÷ none changed`,
        ours: formatMs(idle.ours),
        baseline: formatMs(idle.baseline),
        ratio: idle.ratio,
        ratioRange: idle.ratioRange,
        conclusion:
          `one changed file costs ${formatMs(idle.ours - idle.baseline)} over a checkpoint finding none (${idle.oursResults[0]} ` +
          `file hashed against ${idle.baselineResults[0]}); ${idle.ours <= 50 ? 'within' : 'over'} the 50 ms target.`,
      },
      {
        measurement: `Checkpoint of ${total.toLocaleString('en')} files with 1 changed vs git add -A && git write-tree`,
        ours: formatMs(git.ours),
        baseline: formatMs(git.baseline),
        ratio: git.ratio,
        ratioRange: git.ratioRange,
        conclusion: `a checkpoint takes ${git.ratio.toFixed(2)}× git's time to record the same tree (target ≤ 1×; git in its own process, both after the same one-file edit).`,
      },
      {
        measurement: `Store bytes of a checkpoint after 1 changed ${FILE_BYTES / 1024} KB file ÷ the file's size`,
        ours: formatBytes(perCheckpoint),
        baseline: formatBytes(FILE_BYTES),
        ratio: perCheckpoint / FILE_BYTES,
        ratioRange: [perCheckpoint / FILE_BYTES, perCheckpoint / FILE_BYTES],
        conclusion:
          `the file, the three trees on its path (${TOP_DIRECTORIES}, ${MODULES} and ${FILES_PER_MODULE} entries) and ` +
          `nothing else; every other file and tree is already stored (target ≤ 2×). A tree entry names its content by ` +
          `its sha256 key in text (gc follows keys through stored text), about 110 bytes an entry.`,
      },
      {
        measurement: `Rewind of a ${REWOUND_FILES}-file change vs git checkout -- .`,
        ours: formatMs(median(rewind.ours)),
        baseline: formatMs(median(rewind.git)),
        ratio: median(rewind.ours) / median(rewind.git),
        ratioRange: [
          Math.min(...rewind.ours.map((ms, index) => ms / rewind.git[index]!)),
          Math.max(...rewind.ours.map((ms, index) => ms / rewind.git[index]!)),
        ],
        conclusion:
          `setting ${REWOUND_FILES} files back with restoreWorkspace, as \`rewind\` does in a new CLI process: it first ` +
          `checkpoints the files as they are (so the rewind can be undone) with a cold stat cache, reading every file ` +
          `once; git restores them from its index, whose stat cache is on disk.`,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Each repetition changes 100 files, then sets them back: by rewind to the checkpoint, or by git from its index. */
async function rewindTimes(
  store: ReturnType<typeof createDirectoryStore>,
  workspace: string,
  files: string[],
  repetitions: number,
): Promise<{ ours: number[]; git: number[] }> {
  const checkpointer = createCheckpointer(store);
  await execa('git', ['checkout', '--', '.'], { cwd: workspace });
  const original = (await checkpointer.checkpoint(workspace)).key;
  const changeMany = async () => {
    for (const file of files.slice(0, REWOUND_FILES))
      await writeFile(file, randomBytes(FILE_BYTES / 2).toString('hex'));
  };
  const ours: number[] = [];
  const git: number[] = [];
  for (let repetition = 0; repetition < repetitions; repetition++) {
    await changeMany();
    const last = (await checkpointer.checkpoint(workspace)).key;
    ours.push(await timeMs(() => restoreWorkspace(store, workspace, { target: original, last, force: false })));
    await changeMany();
    git.push(await timeMs(() => execa('git', ['checkout', '--', '.'], { cwd: workspace })));
  }
  return { ours, git };
}

/** The files of FILE_BYTES, their mtimes in the past (as in a checked-out project). */
async function makeWorkspace(workspace: string): Promise<string[]> {
  const files: string[] = [];
  const past = new Date(Date.now() - 3_600_000);
  for (let directory = 0; directory < TOP_DIRECTORIES * MODULES; directory++) {
    const top = `src${directory % TOP_DIRECTORIES}`;
    const directoryPath = path.join(workspace, top, `module${Math.floor(directory / TOP_DIRECTORIES)}`);
    await mkdir(directoryPath, { recursive: true });
    await Promise.all(
      Array.from({ length: FILES_PER_MODULE }, async (_, index) => {
        const file = path.join(directoryPath, `f${index}.txt`);
        await writeFile(file, randomBytes(FILE_BYTES / 2).toString('hex'));
        await utimes(file, past, past);
        files.push(file);
      }),
    );
  }
  return files.sort();
}

async function storeBytes(directory: string): Promise<number> {
  let total = 0;
  const objects = path.join(directory, 'objects');
  for (const prefix of await readdir(objects).catch(() => [])) {
    for (const name of await readdir(path.join(objects, prefix)))
      total += (await stat(path.join(objects, prefix, name))).size;
  }
  return total;
}
