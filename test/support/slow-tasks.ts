// Workflow tasks over 1 s in the whole e2e run, as the test workers' core reports them (TMPRL1104, its threshold
// lowered from 5 s to 1 s): every process appends what it saw to one file, and the summary reporter counts it.
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FILE_VARIABLE = 'DURABLE_AGENT_TEST_SLOW_TASKS';

/** In the global setup, before any worker starts: the threshold and the shared file, inherited by every test process. */
export function prepareSlowTaskLog(): void {
  process.env.TEMPORAL_WORKFLOW_TASK_DURATION_WARN_SECONDS = '1';
  process.env[FILE_VARIABLE] ??= path.join(mkdtempSync(path.join(os.tmpdir(), 'durable-agent-slow-tasks-')), 'log');
}

/** Names the test file a worker process serves, for the slow tasks it records. */
export const TEST_FILE_VARIABLE = 'DURABLE_AGENT_TEST_FILE';

/** Records a runtime warning when it is a slow workflow task, with the test file whose worker saw it. */
export function noteIfSlowTask(message: string, testFile = process.env[TEST_FILE_VARIABLE]): void {
  const file = process.env[FILE_VARIABLE];
  if (!file || !message.includes('TMPRL1104')) return;
  const where = testFile ? `${path.relative(process.cwd(), testFile)}: ` : '';
  appendFileSync(file, `${where}${message.replace(/\n/g, ' ')}\n`);
}

/** The slow workflow tasks recorded in this run (none when the e2e setup did not run). */
export function slowTasksRecorded(): string[] {
  const file = process.env[FILE_VARIABLE];
  if (!file) return [];
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}
