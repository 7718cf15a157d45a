import { readdirSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import BenchEarlySequencer from './test/helpers/bench-early-sequencer.ts';
import { nockLoader } from './test/helpers/loads-nock.ts';

// Node 24 and later keep the code compiled from the type-stripped sources here, for the test workers (which inherit
// this environment) and the bridges they start (test/helpers/compile-cache.ts): each load of the bridge then takes
// about 0.6 s of processor instead of 1.1 s. Keyed by each file's content, so an edited file is compiled anew.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'loyalty-bridge-compile-cache');
// Node 22 does not keep the stripped sources: test/helpers/strip-cache.ts does, for the workers and their bridges.
if (Number(process.versions.node.split('.')[0]) < 24) {
  const hook = `--import=${new URL('./test/helpers/strip-cache.ts', import.meta.url).href}`;
  if (!process.env.NODE_OPTIONS?.includes(hook))
    process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${hook}`.trim();
}

// `npm run test:node-lines` (CI on Node 24 and 26, docs/development.md): the tests that drive Node's own APIs. What a
// new line of Node changes is Node: type stripping, child processes and signals, files and fsync, crypto, sockets,
// HTTP and fetch, streams, timers. Units and contracts drive each of those directly; of the end-to-end files, those
// below drive a bridge's process itself (start, stop, a kill and a reopened ledger, the terminal, the CLI, a ledger
// migrated, secrets sealed at rest). The other end-to-end files drive the same paths through the same stores and
// servers, as do the browser pages, models and sweeps; and some only wait out leases and rate windows.
const nodeLines = process.env.LB_TEST_SET === 'node-lines';
const PROCESS_E2E = [
  'start',
  'crash',
  'cli',
  'terminal',
  'first-run-terminal',
  'first-run-demo',
  'migrate',
  'logs-and-shutdown',
  'secrets-at-rest',
  'postgres-acknowledgement',
].map((name) => `test/e2e/${name}.test.ts`);
const NODE_LINES = ['test/contract/**/*.test.ts', ...PROCESS_E2E, 'test/upgrade/**/*.test.ts'];
const WAITING = [
  'test/contract/budget-places.test.ts',
  'test/contract/lanes-engine.test.ts',
  'test/contract/rate-limit.test.ts',
  'test/contract/postgres-leases.test.ts',
];

/**
 * Files that change what every module of their process sees (nock's scopes and net-connect rules of their own, fake
 * timers, a spy on a global, process.env, the CLI's signal handlers): each in a process of its own, while the other
 * files share their worker's modules, those that load nock apart from those that do not (below; issue 67).
 */
const ALONE = [
  'test/browser/shopify-install.test.ts',
  'test/browser/dashboard.test.ts',
  'test/contract/storefront-single-attempt.test.ts',
  'test/contract/shopify-access.test.ts',
  'test/contract/client-retry.test.ts',
  'test/e2e/admin-accounts.test.ts',
  'test/e2e/admin-api.test.ts',
  'test/e2e/rewards-crash.test.ts',
  'test/e2e/shopify-app-url.test.ts',
  'test/e2e/first-run-demo-refused.test.ts',
  'test/e2e/cli.test.ts',
  'test/security/outbound.test.ts',
  // Streams a download line by line against an idle limit: nock, active in a worker once an earlier file's fake
  // Shopify loaded it, hands a response over whole, so the limit passed before the first line.
  'test/contract/shopify-bulk.test.ts',
];
const suiteLeftOut = ['test/unit/**', ...(nodeLines ? WAITING : [])];
const inSuite = (file: string) =>
  !nodeLines || NODE_LINES.some((entry) => file === entry || file.startsWith(entry.replace('**/*.test.ts', '')));
const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? testFiles(`${dir}/${entry.name}`)
      : entry.name.endsWith('.test.ts')
        ? [`${dir}/${entry.name}`]
        : [],
  );
// The files with servers and processes, beside the units: those that load nock share their workers among themselves,
// apart from the others (test/helpers/loads-nock.ts says why).
const loadsNock = nockLoader();
const served = testFiles('test').filter(
  (file) => !file.startsWith('test/unit/') && inSuite(file) && !(nodeLines && WAITING.includes(file)),
);
const withNock = served.filter((file) => !ALONE.includes(file) && loadsNock(resolve(file)));
const sharing = served.filter((file) => !ALONE.includes(file) && !withNock.includes(file));

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for what a page or a server will show: its deadline only bounds a failure, and its default
    // (1 s) was shorter than a loaded machine takes to show a toast (shopify-merchant-setup, under test:loaded).
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // Node loads the TypeScript itself, as in production (type stripping): no transform, and about half the time of
    // Vite's module runner to import a file's modules (issue 67). No test uses vi.mock, which would need the runner.
    experimental: { viteModuleRunner: false, nodeLoader: false },
    // The suite waits more than it computes: with two workers on two cores it used 516 s of processor in 608 s
    // (leases, rate windows, servers' answers). A third overlaps those waits: 492 s; a fourth, 449 s, but its slowest
    // files near their limits (the bench smoke 121 s of 180). At most four, for PostgreSQL's 100 connections.
    maxWorkers: Math.min(availableParallelism() + 1, 4),
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    sequence: { sequencer: BenchEarlySequencer },
    globalSetup: ['./test/helpers/global-setup.ts'],
    projects: [
      {
        extends: true,
        // Pure units share one module graph per worker: loading it again for each of ~100 files was half their
        // time. They start no server and restore whatever they fake (timers), so no file sees another's state.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
      {
        extends: true,
        // Servers and processes that leave nothing behind in their process but modules: they share them, as units do.
        // Each file starts and stops its own servers, databases and browsers (a probe of open handles before and
        // after each file found none left), so only modules carry over: loaded once a worker, not once a file.
        test: { name: 'shared', include: sharing, isolate: false },
      },
      {
        extends: true,
        // The files that load nock share their workers among themselves: nock is active in each of them anyway, and
        // its helpers take away their scopes and allow every connection again (test/helpers/loads-nock.ts).
        test: { name: 'suite', include: withNock, isolate: false },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE.filter(inSuite), exclude: suiteLeftOut },
      },
    ],
  },
});
