// Prints one plain closing line, "tests: N passed, N failed, N skipped", that
// any CI can read without knowing vitest's own output; before it, the slowest
// files and the time spent importing (each file's modules and its suites'
// callbacks), so that what makes CI long is in its log (docs/development.md).
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const count = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const { state } = test.result();
        if (state === 'passed') count.passed++;
        else if (state === 'failed') count.failed++;
        else count.skipped++;
      }
      // A file that failed to load has no tests but is a failure all the same.
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) count.failed++;
    }
    const slowest = [...testModules]
      .map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 12);
    const line = ({ file, ms }: { file: string; ms: number }) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`;
    process.stdout.write(`\nslowest files:\n${slowest.map(line).join('\n')}\n`);
    const imports = [...testModules].map((module) => ({
      file: module.relativeModuleId,
      ms: module.diagnostic().collectDuration,
    }));
    const importing = imports.reduce((total, { ms }) => total + ms, 0);
    const longest = imports.sort((a, b) => b.ms - a.ms).slice(0, 5);
    process.stdout.write(
      `\nimporting: ${(importing / 1000).toFixed(1)} s in ${imports.length} files; the longest:\n${longest.map(line).join('\n')}\n`,
    );
    process.stdout.write(`\ntests: ${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`);
  }
}
