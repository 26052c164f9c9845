// Node: `gc`: deletes stored content no open run can reach and that is older than --older-than.
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { ContentKey } from '../../protocol/content-key.js';
import { referencedKeys } from '../../protocol/content-key.js';
import { StoreUnavailableError } from '../../store/content-store.js';
import type { GcReport, Tally } from '../../store/garbage-collector.js';
import { collectGarbage } from '../../store/garbage-collector.js';
import { storeFromEnv } from '../../store/store-from-env.js';
import { storeRootsQuery } from '../../protocol/run-messages.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { visibleText } from '../../core/terminal-text.js';
import { color, log, out, outJson } from '../output.js';
import { stateDir } from '../../host/state-dir.js';
import { parseDuration } from '../duration.js';
import { STORED_TRUST_MS } from '../../activities/checkpoint/checkpointer.js';
import { parseCommandLine } from '../option-table.js';
import { gcOptions } from '../options/runs.js';
import { LIVE_FILES_KEEP_MS, sweepLiveFiles } from '../../live/file-channel.js';
import { liveRoot } from '../../live/file-layout.js';

/** An open run whose roots could not be read, and why. */
export interface UnreadableRun {
  workflowId: string;
  runId: string;
  taskQueue: string;
  reason: string;
}

// Long enough for a busy worker; a run nobody serves fails sooner (the server says so) or at this deadline.
const QUERY_TIMEOUT_MS = 10_000;
const QUERY_CONCURRENCY = 8;
const OPEN_AGENT_RUNS = `WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running'`;

/** The keys every open agent run refers to, and the runs that did not answer. */
export async function openRunRoots(
  client: Client,
): Promise<{ runs: number; roots: ContentKey[]; unreadable: UnreadableRun[] }> {
  const executions: WorkflowExecutionInfo[] = [];
  for await (const execution of client.workflow.list({ query: OPEN_AGENT_RUNS })) executions.push(execution);
  const roots = new Set<ContentKey>();
  const unreadable: UnreadableRun[] = [];
  let next = 0;
  // A few queries at a time: each one is a workflow task on some worker, and a namespace may hold many open runs.
  const lane = async (): Promise<void> => {
    while (next < executions.length) {
      const execution = executions[next++]!;
      // By workflow id alone: a run that continued as new since the listing answers from its newest run.
      const handle = client.workflow.getHandle(execution.workflowId);
      try {
        const answer = await client.connection.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () =>
          handle.query(storeRootsQuery),
        );
        referencedKeys(JSON.stringify(answer)).forEach((key) => roots.add(key));
      } catch (error) {
        unreadable.push({
          workflowId: execution.workflowId,
          runId: execution.runId,
          taskQueue: execution.taskQueue,
          reason: queryFailure(error),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(QUERY_CONCURRENCY, executions.length) }, lane));
  return { runs: executions.length, roots: [...roots], unreadable };
}

function queryFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/deadline/i.test(message))
    return `no answer to the storeRoots query within ${QUERY_TIMEOUT_MS / 1000}s (no worker polling?)`;
  return message.split('\n')[0]!;
}

/** `gc [--older-than 30d] [--dry-run] [--json]`: deletes stored content no open run can reach. */
export async function gcCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(gcOptions, argv);
  if (positionals.length) throw new UsageError(`gc takes no arguments, got "${positionals.join(' ')}"`);
  const olderThan = values['older-than'];
  const olderThanMs = parseDuration(olderThan);
  if (olderThanMs === undefined)
    throw new UsageError(`--older-than must be a duration like 30d, 12h or 90m, got "${olderThan}"`);
  // A worker names the stored content of unchanged files for up to this long without storing it again.
  if (olderThanMs < STORED_TRUST_MS)
    throw new UsageError(
      `--older-than must be at least 1h: workers' checkpoints name content they stored within the last hour without storing it again (docs/checkpoints.md)`,
    );
  const dryRun = values['dry-run'];
  const store = storeFromEnv(process.env, { stateDir: stateDir() });

  // A worker must be polling for open runs to answer; with the embedded server, make sure one is.
  const connected = await connect(config, { needWorker: true });
  let found;
  try {
    found = await openRunRoots(connected.client);
  } finally {
    await connected.close();
  }
  if (found.unreadable.length > 0) {
    const summary = {
      status: 'refused',
      store: store.description,
      dryRun,
      olderThan,
      openRuns: found.runs,
      unreadableRuns: found.unreadable,
    };
    if (values.json) outJson(summary);
    log(
      color.red(
        `error: gc did not sweep: ${found.unreadable.length} of ${found.runs} open runs did not say which content they need:`,
      ),
    );
    for (const run of found.unreadable)
      log(`  ${visibleText(run.workflowId)} (task queue ${visibleText(run.taskQueue)}): ${visibleText(run.reason)}`);
    log('Content such a run may still read would be deleted. Start a worker for it (or end the run) and run gc again.');
    return EXIT.failed;
  }

  const cutoff = new Date(Date.now() - olderThanMs);
  let report: GcReport;
  try {
    report = await collectGarbage(store, found.roots, { cutoff, dryRun });
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    log(color.red(`error: ${error.message}`));
    return EXIT.failed;
  }
  // Live output's files of calls that ended an hour ago or more: the worker sweeps them too, while it runs.
  const liveFiles = dryRun ? 0 : await sweepLiveFiles(liveRoot(stateDir()), LIVE_FILES_KEEP_MS);
  const kept = {
    objects: report.stored.objects - report.deleted.objects,
    bytes: report.stored.bytes - report.deleted.bytes,
  };
  if (values.json) {
    const summary = {
      status: dryRun ? 'dry-run' : 'swept',
      store: store.description,
      dryRun,
      olderThan,
      cutoff: cutoff.toISOString(),
      openRuns: found.runs,
      roots: found.roots.length,
      ...report,
      kept,
      liveFilesDeleted: liveFiles,
    };
    outJson(summary);
  } else {
    out(
      [
        `store ${store.description}: ${formatTally(report.stored)}; roots: ${found.roots.length} keys from ${found.runs} open runs`,
        `kept ${formatTally(kept)}: ${formatTally(report.reachable)} reachable, ${formatTally(report.recent)} newer than ${olderThan}` +
          (report.reused.objects ? `, ${formatTally(report.reused)} re-used during the sweep` : ''),
        `${dryRun ? 'would delete' : 'deleted'} ${formatTally(report.deleted)} unreachable and older than ${olderThan}` +
          (dryRun ? ' (dry run: nothing deleted)' : ''),
        ...(report.missing.length
          ? [`${report.missing.length} referenced keys are not in the store (collected earlier or never written)`]
          : []),
        ...(liveFiles ? [`deleted ${liveFiles} live-output files of calls that ended over an hour ago`] : []),
        '',
      ].join('\n'),
    );
  }
  return EXIT.finished;
}

function formatTally(tally: Tally): string {
  return `${tally.objects} ${tally.objects === 1 ? 'object' : 'objects'} (${formatBytes(tally.bytes)})`;
}

/** 1536 → `1.5 KiB`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}
