// Prints one plain closing line, "N passed, N failed, N skipped", after vitest's own summary, so any CI log
// reader can tell how many tests ran without knowing vitest's format.
import type { Reporter, TestModule } from 'vitest/node';

/** Counts test cases by final state across all modules. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
