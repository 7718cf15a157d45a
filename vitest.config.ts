import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
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
        test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: ['test/unit/**'] },
      },
    ],
  },
});
