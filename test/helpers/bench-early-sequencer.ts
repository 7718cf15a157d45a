// Vitest's own order (by project; in a project, by the durations its cache kept, else larger files first), except
// that the bench smoke starts first in its project. On a fresh clone, as in CI, there is no cache, and the bench smoke
// (a small file, one test of about 80 s) started last: the other worker then ran the units and waited for it alone.
// Only this file moves: started side by side, the heaviest files each took two to four times as long (issue 67).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const EARLY = 'test/bench-smoke.test.ts';

export default class BenchEarlySequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const bench = sorted.findIndex((spec) => spec.moduleId.endsWith(EARLY));
    if (bench === -1) return sorted;
    const [spec] = sorted.splice(bench, 1) as [TestSpecification];
    const first = sorted.findIndex((each) => each.project.name === spec.project.name);
    sorted.splice(first === -1 ? sorted.length : first, 0, spec);
    return sorted;
  }
}
