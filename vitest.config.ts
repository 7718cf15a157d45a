import { defineConfig } from 'vitest/config';

// `npm run test:node-lines` (CI on Node 24 and 26, docs/development.md): the tests that drive Node's own APIs, without
// those that drive the same paths through other tools or spend their time waiting out leases and rate windows.
const nodeLines = process.env.LB_TEST_SET === 'node-lines';
const NODE_LINES = ['test/contract/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/upgrade/**/*.test.ts'];
const WAITING = [
  'test/e2e/shared-postgres.test.ts',
  'test/e2e/postgres-takeover.test.ts',
  'test/contract/budget-places.test.ts',
  'test/contract/lanes-engine.test.ts',
  'test/contract/rate-limit.test.ts',
  // Two and a half minutes of bridge processes started and killed: the Node paths it drives (child processes, fsync,
  // a ledger reopened) are driven on every line by e2e/crash and e2e/start.
  'test/e2e/rewards-crash.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for what a page or a server will show: its deadline only bounds a failure, and its default
    // (1 s) was shorter than a loaded machine takes to show a toast (shopify-merchant-setup, under test:loaded).
    expect: { poll: { timeout: 15_000 } },
    // Two cores: two workers, and tests that start real servers do not fight for them.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
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
        // Servers, nock, fake timers and environment: each file in a process of its own.
        test: {
          name: 'suite',
          include: nodeLines ? NODE_LINES : ['test/**/*.test.ts'],
          exclude: ['test/unit/**', ...(nodeLines ? WAITING : [])],
        },
      },
    ],
  },
});
