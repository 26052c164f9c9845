// Node: the changes between two checkpoints as a git-style unified diff, the files' contents read from the content
// store. A link's target is shown as its text, as git shows it.
import { createTwoFilesPatch } from 'diff';
import type { FileChange, TreeEntry } from '../../protocol/checkpoint.js';
import type { ContentStore } from '../../store/content-store.js';

/** Larger text is not diffed: its hunks would bury every other change, and Myers' diff costs O(N·D). */
export const MAX_DIFF_BYTES = 1024 * 1024;
// git's rule: a NUL in the first 8000 bytes makes a file binary.
const BINARY_WINDOW = 8000;
const CONTEXT_LINES = 3;
const DIFF_TIMEOUT_MS = 2_000;
// Changes whose contents are read at once.
const READ_CONCURRENCY = 16;

/** The patch of every change, in the order given; a directory's own change adds nothing (git shows none). */
export async function renderUnifiedDiff(store: ContentStore, changes: readonly FileChange[]): Promise<string> {
  const parts: string[] = [];
  for (let start = 0; start < changes.length; start += READ_CONCURRENCY) {
    const batch = changes.slice(start, start + READ_CONCURRENCY);
    parts.push(...(await Promise.all(batch.map((change) => renderChange(store, change)))));
  }
  return parts.join('');
}

async function renderChange(store: ContentStore, change: FileChange): Promise<string> {
  const { before, after } = change;
  if ((after ?? before)?.type === 'dir') return '';
  const oldName = before ? `a/${change.path}` : '/dev/null';
  const newName = after ? `b/${change.path}` : '/dev/null';
  const lines = [`diff --git a/${change.path} b/${change.path}`];
  const oldMode = gitMode(before);
  const newMode = gitMode(after);
  if (!before && newMode) lines.push(`new file mode ${newMode}`);
  else if (!after && oldMode) lines.push(`deleted file mode ${oldMode}`);
  else if (oldMode && newMode && oldMode !== newMode) lines.push(`old mode ${oldMode}`, `new mode ${newMode}`);

  const skipped = [
    ...(before?.type === 'skipped' ? [notCheckpointed(oldName, before)] : []),
    ...(after?.type === 'skipped' ? [notCheckpointed(newName, after)] : []),
  ];
  if (skipped.length > 0) return `${[...lines, ...skipped].join('\n')}\n`;
  if (byteSize(before) > MAX_DIFF_BYTES || byteSize(after) > MAX_DIFF_BYTES) {
    return `${[...lines, '(diff of a file over 1 MiB not shown)'].join('\n')}\n`;
  }

  const [oldBytes, newBytes] = await Promise.all([contentOf(store, before), contentOf(store, after)]);
  // Only the mode changed (or an empty file came or went): the header says it all.
  if (Buffer.compare(oldBytes, newBytes) === 0) return `${lines.join('\n')}\n`;
  if (isBinary(oldBytes) || isBinary(newBytes)) {
    return `${[...lines, `Binary files ${oldName} and ${newName} differ`].join('\n')}\n`;
  }
  const patch = createTwoFilesPatch(
    oldName,
    newName,
    oldBytes.toString('utf8'),
    newBytes.toString('utf8'),
    undefined,
    undefined,
    { context: CONTEXT_LINES, timeout: DIFF_TIMEOUT_MS },
  );
  if (patch === undefined) return `${[...lines, '(diff too slow to compute, not shown)'].join('\n')}\n`;
  return `${lines.join('\n')}\n${stripBanner(patch)}`;
}

/** git's mode of an entry: 100644 and the like for a file, 120000 for a link; none for what was not recorded. */
function gitMode(entry: TreeEntry | undefined): string | undefined {
  if (entry?.type === 'symlink') return '120000';
  if (entry?.type === 'file') return (0o100000 | (entry.mode ?? 0o644)).toString(8);
  return undefined;
}

function notCheckpointed(name: string, entry: TreeEntry): string {
  const size = entry.size === undefined ? '' : ` (${entry.size} bytes)`;
  return `${name} was not checkpointed: ${entry.reason ?? 'no reason recorded'}${size}`;
}

function byteSize(entry: TreeEntry | undefined): number {
  if (entry?.type === 'symlink') return Buffer.byteLength(entry.target ?? '', 'utf8');
  return entry?.size ?? 0;
}

async function contentOf(store: ContentStore, entry: TreeEntry | undefined): Promise<Buffer> {
  if (entry?.type === 'symlink') return Buffer.from(entry.target ?? '', 'utf8');
  if (entry?.type !== 'file' || entry.key === undefined) return Buffer.alloc(0);
  const bytes = await store.get(entry.key);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function isBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, BINARY_WINDOW).includes(0);
}

// The diff package opens its patch with a line of '=' that git's format does not have.
function stripBanner(patch: string): string {
  const start = patch.indexOf('--- ');
  return start === -1 ? patch : patch.slice(start);
}
