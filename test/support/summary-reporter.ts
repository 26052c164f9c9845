// Prints one plain closing line, "N passed, N failed, N skipped", after vitest's own summary, so any CI log
// reader can tell how many tests ran without knowing vitest's format; then one line per distinct reason tests were
// skipped for (the note of `context.skip(note)`), with its count, so a skip is never silent; then how many workflow
// tasks of the e2e tests' workers took over 1 s.
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import { slowTasksRecorded } from './slow-tasks.js';

/** Counts test cases by final state across all modules, and skipped ones by reason. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const skipReasons = new Map<string, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else {
          counts.skipped++;
          const reason = skipReason(test);
          skipReasons.set(reason, (skipReasons.get(reason) ?? 0) + 1);
        }
      }
    }
    const lines = [`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`];
    // Most frequent first, so the reason behind most of the skips leads.
    for (const [reason, count] of [...skipReasons].sort(([, a], [, b]) => b - a)) {
      lines.push(`  skipped ${count}: ${reason}`);
    }
    const slowTasks = slowTasksRecorded();
    lines.push(`  workflow tasks over 1 s (TMPRL1104): ${slowTasks.length}`);
    for (const task of slowTasks.slice(0, 10)) lines.push(`    ${task.slice(0, 200)}`);
    process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}

/** The note a test was skipped with, or how it was skipped when it has none. */
function skipReason(test: TestCase): string {
  const result = test.result();
  const note = result.state === 'skipped' ? result.note?.trim() : undefined;
  if (note) return note;
  if (result.state === 'pending') return 'not run (the run stopped before it)';
  if (test.options.mode === 'todo') return 'todo';
  // it.skip, a `.only` or `-t` filter elsewhere, or context.skip() without a note.
  return 'no reason given';
}
