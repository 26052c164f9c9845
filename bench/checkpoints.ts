// Workspace checkpoints (docs/checkpoints.md): a 10,000-file workspace checkpointed with one file changed against
// none changed and against `git add -A && git write-tree` on the same tree, by a worker's checkpointer (with its change
// watch) and by a one-off one (a walk of every directory); the store bytes one changed 4 KB file costs; rewinding a
// 100-file change against `git checkout -- .` doing the same.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import type { Checkpointer } from '../src/activities/checkpoint/checkpointer.js';
import { createCheckpointer } from '../src/activities/checkpoint/checkpointer.js';
import { TREE_DELTA_DEPTH } from '../src/protocol/checkpoint.js';
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
// Consecutive one-file checkpoints the store bytes are averaged over: each of the three trees on the path stored whole
// once (a chain of deltas ends every TREE_DELTA_DEPTH + 1 checkpoints, one directory at a time).
const BYTES_CHECKPOINTS = 3 * (TREE_DELTA_DEPTH + 1);

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
    const watched = createCheckpointer(store, { watch: true });
    const walking = createCheckpointer(store);
    // Each checkpointer's first checkpoint reads every file; the rest follow its stat cache (and watch).
    await watched.checkpoint(workspace);
    await walking.checkpoint(workspace);
    let edits = 0;
    // Dated in the past (a different second each time), as an edit is by the next checkpoint: not "racily clean".
    const changeOne = async () => {
      const file = files[edits++ % files.length]!;
      await writeFile(file, randomBytes(FILE_BYTES / 2).toString('hex'));
      const past = new Date(Date.now() - 60_000 - edits * 1000);
      await utimes(file, past, past);
    };
    const oneChanged = async (checkpointer: Checkpointer) => {
      await changeOne();
      return (await checkpointer.checkpoint(workspace)).hashed;
    };
    const noneChanged = async (checkpointer: Checkpointer) => (await checkpointer.checkpoint(workspace)).hashed;
    const git = async () => {
      await changeOne();
      await execa('git', ['add', '-A'], { cwd: workspace });
      await execa('git', ['write-tree'], { cwd: workspace });
    };

    const idle = await compareTimes(
      [0],
      () => oneChanged(watched),
      () => noneChanged(watched),
      { repetitions },
    );
    const versusGit = await compareTimes([0], () => oneChanged(watched), git, { repetitions });
    const walkIdle = await compareTimes(
      [0],
      () => oneChanged(walking),
      () => noneChanged(walking),
      { repetitions },
    );
    const walkVersusGit = await compareTimes([0], () => oneChanged(walking), git, { repetitions });

    await watched.checkpoint(workspace); // the edits of the one-off checkpointer's repetitions
    const perCheckpoint: number[] = [];
    for (let index = 0; index < BYTES_CHECKPOINTS; index++) {
      const before = await storeBytes(storeDirectory);
      await changeOne();
      await watched.checkpoint(workspace);
      perCheckpoint.push((await storeBytes(storeDirectory)) - before);
    }
    const meanBytes = perCheckpoint.reduce((sum, bytes) => sum + bytes, 0) / perCheckpoint.length;

    const rewind = await rewindTimes(store, workspace, files, repetitions);

    const total = (TOP_DIRECTORIES * MODULES * FILES_PER_MODULE).toLocaleString('en');
    const within = (ms: number) => (ms <= 50 ? 'within' : 'over');
    return [
      {
        measurement: `Checkpoint of ${total} files, 1 changed ÷ none changed, worker (change watch)`,
        ours: formatMs(idle.ours),
        baseline: formatMs(idle.baseline),
        ratio: idle.ratio,
        ratioRange: idle.ratioRange,
        conclusion:
          `a worker reads only the directories an event was seen in: the changed file's, its parents' (${idle.oursResults[0]} ` +
          `file hashed against ${idle.baselineResults[0]}); ${within(idle.ours)} the 50 ms target. The ratio is the ` +
          `cost of reading and storing one file and the trees on its path against that of finding nothing happened.`,
      },
      {
        measurement: `Checkpoint of ${total} files with 1 changed, worker (change watch) vs git add -A && git write-tree`,
        ours: formatMs(versusGit.ours),
        baseline: formatMs(versusGit.baseline),
        ratio: versusGit.ratio,
        ratioRange: versusGit.ratioRange,
        conclusion: `a worker's checkpoint takes ${versusGit.ratio.toFixed(2)}× git's time to record the same tree (target ≤ 1×; git in its own process, both after the same one-file edit).`,
      },
      {
        measurement: `Checkpoint of ${total} files, 1 changed ÷ none changed, one-off (every directory walked)`,
        ours: formatMs(walkIdle.ours),
        baseline: formatMs(walkIdle.baseline),
        ratio: walkIdle.ratio,
        ratioRange: walkIdle.ratioRange,
        conclusion:
          `every file's stat read and compared with the stat cache, as in a one-off checkpoint (rewind, fork) and in a ` +
          `worker's first, its read of everything every 5 minutes, and after events may have been lost; ` +
          `${within(walkIdle.ours)} the 50 ms target, which is met by the watch.`,
      },
      {
        measurement: `Checkpoint of ${total} files with 1 changed, one-off (every directory walked) vs git add -A && git write-tree`,
        ours: formatMs(walkVersusGit.ours),
        baseline: formatMs(walkVersusGit.baseline),
        ratio: walkVersusGit.ratio,
        ratioRange: walkVersusGit.ratioRange,
        conclusion: `the walk takes ${walkVersusGit.ratio.toFixed(2)}× git's time, which reads the same stats on several threads.`,
      },
      {
        measurement: `Store bytes per checkpoint after 1 changed ${FILE_BYTES / 1024} KB file ÷ the file's size, ${BYTES_CHECKPOINTS} in a row`,
        ours: formatBytes(meanBytes),
        baseline: formatBytes(FILE_BYTES),
        ratio: meanBytes / FILE_BYTES,
        ratioRange: [Math.min(...perCheckpoint) / FILE_BYTES, Math.max(...perCheckpoint) / FILE_BYTES],
        conclusion:
          `mean of ${BYTES_CHECKPOINTS} consecutive checkpoints (target ≤ 2×): the file and the three trees on its path ` +
          `(${TOP_DIRECTORIES}, ${MODULES} and ${FILES_PER_MODULE} entries), each stored as its changes to the tree ` +
          `before it, and whole again after ${TREE_DELTA_DEPTH} deltas, one directory a checkpoint (the range's high end).`,
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
