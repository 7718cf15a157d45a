// Every bench scenario at a tiny size, so that `npm run bench` cannot rot.
// It checks that each produces its figures, not the targets: those are for
// the full run, on a quiet machine.
import { expect, it } from 'vitest';
import { PROFILES, runBench, table } from '../bench/run.ts';

it('runs every benchmark scenario and prints the table', async () => {
  const result = await runBench(PROFILES.smoke!);
  expect(result.ack.bare.requestsPerSecond).toBeGreaterThan(0);
  expect(result.ack.bridge.requestsPerSecond).toBeGreaterThan(0);
  expect(result.ack.bridge.non2xx).toBe(0);
  expect(result.growth).toHaveLength(1);
  expect(result.growth[0]?.startupMs).toBeGreaterThan(0);
  expect(result.drain).toMatchObject({ jobs: 30, rateLimited: 0, failed: 0 });
  expect(result.latency.p50).toBeGreaterThan(0);
  expect(table(result)).toContain('| bridge (durable ack) |');
}, 120_000);
