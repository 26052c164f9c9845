// Node: the retry side of the write journal (docs/tools.md §8 durable retry): report a write that already landed, once.
import type { ExecutorContext } from '../executors/types.js';
import type { ToolActivityResult } from '../../protocol/tool-activity.js';
import { journalDirectory } from '../worker-data.js';
import { committedResult } from './common.js';
import { sha256OfFile } from './hash.js';
import { readJournal } from './journal.js';
import type { WriteJournalRecord } from './journal.js';
import { statSnapshot } from './snapshot.js';

/**
 * On a retry attempt, if this activity's journal says it meant to put bytes with `intended_sha256` at `rel` and the
 * file now holds exactly those (and not the bytes it started from), returns the original result with
 * `idempotent_replay: true` and a refreshed store entry. Otherwise undefined: run the call normally.
 */
export async function findIdempotentReplay(options: {
  executor: ExecutorContext;
  tool: WriteJournalRecord['tool'];
  rel: string;
  real: string;
}): Promise<ToolActivityResult | undefined> {
  const { executor, tool, rel, real } = options;
  if (executor.attempt <= 1) return undefined;
  const record = await readJournal(journalDirectory(executor.dataDir), executor.activityKey);
  if (!record || record.tool !== tool || record.rel !== rel) return undefined;
  let sha256: string;
  let snapshot;
  try {
    snapshot = await statSnapshot(real);
    if (!snapshot.isFile) return undefined;
    sha256 = await sha256OfFile(real);
  } catch {
    return undefined;
  }
  if (sha256 !== record.intended_sha256 || sha256 === record.expected_sha256) return undefined;
  return committedResult({
    executor,
    rel,
    result: { ...record.result, data: { ...record.result.data, idempotent_replay: true } },
    snapshot,
    sha256,
    source: tool === 'WriteFile' ? 'write' : 'edit',
  });
}
