// The suite's files in vitest's order (by project; in a project, by the durations its cache kept, else larger
// files first), except that the slowest files, named here, start first in their project. On a fresh clone there
// is no cache, and the bench smoke (4 KB, about 90 s) started among the last: the other worker then waited for it
// alone at the end. Started first, its time overlaps everything else's (docs/development.md, issue 67).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The slowest files on a quiet 2-core machine, slowest first (the summary at the end of a run names them). */
const SLOWEST = [
  'test/e2e/rewards-crash.test.ts',
  'test/bench-smoke.test.ts',
  'test/property/store-model.test.ts',
  'test/security/cross-tenant-sweep.test.ts',
  'test/property/reward-reservations-model.test.ts',
];

const rank = (spec: TestSpecification): number => {
  const index = SLOWEST.findIndex((file) => spec.moduleId.endsWith(file));
  return index === -1 ? SLOWEST.length : index;
};

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const position = new Map(sorted.map((spec, index) => [spec, index]));
    // Projects keep their order: the sort moves a file ahead of others of its own project alone.
    const projectOf = (spec: TestSpecification) => spec.project.name;
    const firstOf = new Map<string, number>();
    for (const [index, spec] of sorted.entries())
      if (!firstOf.has(projectOf(spec))) firstOf.set(projectOf(spec), index);
    return [...sorted].sort(
      (a, b) =>
        firstOf.get(projectOf(a))! - firstOf.get(projectOf(b))! ||
        rank(a) - rank(b) ||
        position.get(a)! - position.get(b)!,
    );
  }
}
