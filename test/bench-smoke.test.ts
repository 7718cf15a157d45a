// Every bench scenario at a tiny size, so that `npm run bench` cannot rot.
// It checks that each produces its figures, not the targets: those are for
// the full run, on a quiet machine.
import { expect, it } from 'vitest';
import { PROFILES, runBench, table } from '../bench/run.ts';
import { postgresAvailable } from './helpers/postgres.ts';

it('runs every benchmark scenario and prints the table', async () => {
  const result = await runBench(PROFILES.smoke!);
  expect(result.ack.bare.requestsPerSecond).toBeGreaterThan(0);
  expect(result.ack.lowdb.requestsPerSecond).toBeGreaterThan(0);
  expect(result.ack.lowdb.non2xx).toBe(0);
  if (postgresAvailable()) expect(result.ack.postgresTwo?.non2xx).toBe(0);
  expect(result.platformHang.hung.non2xx).toBe(0);
  expect(result.history.map((point) => point.backend)).toEqual(postgresAvailable() ? ['lowdb', 'postgres'] : ['lowdb']);
  expect(result.history[0]?.startupMs).toBeGreaterThan(0);
  expect(result.history[0]?.listP99).toBeGreaterThan(0);
  expect(result.drain).toMatchObject({ jobs: 30, rateLimited: 0, failed: 0 });
  expect(result.latency.p50).toBeGreaterThan(0);
  expect(table(result)).toContain('| BigCommerce deliveries, store API hung |');
}, 120_000);
