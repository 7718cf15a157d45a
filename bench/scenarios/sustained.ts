// The sustained pipeline: deliveries held at a steady rate for minutes into
// the real bridge (the soak's held load, 5% upstream faults), rate after rate,
// on lowdb and on PostgreSQL. A rate is held when every delivery was
// acknowledged and every acknowledged order earned within 60 s of the load's
// end; the row reports the highest rate held, and what the next one did.
import { heldLoad, type LoadResult } from '../../test/soak/load.ts';
import { freshDatabase, probePostgres } from '../lib/databases.ts';

export interface SustainedProfile {
  seconds: number;
  /** Tried in order on each backend; the first not held ends that backend's climb. */
  rates: { lowdb: number[]; postgres: number[] };
}

export interface SustainedRun extends Pick<
  LoadResult,
  'ratePerSecond' | 'sent' | 'acknowledged' | 'drainedAfterSeconds' | 'late' | 'lost' | 'doubled' | 'peakBacklog'
> {
  held: boolean;
}

export interface SustainedScenario {
  seconds: number;
  lowdb: SustainedRun[];
  postgres?: SustainedRun[];
}

const DRAIN_SECONDS = 60;

async function climb(
  rates: number[],
  seconds: number,
  env: () => Promise<{ env: Record<string, string>; done(): Promise<void> }>,
  log: (line: string) => void,
): Promise<SustainedRun[]> {
  const runs: SustainedRun[] = [];
  for (const rate of rates) {
    const setup = await env();
    try {
      log(`  ${rate} deliveries a second for ${seconds} s ...`);
      const result = await heldLoad(
        {
          seconds,
          ratePerSecond: rate,
          warmupSeconds: Math.min(60, seconds / 2),
          faultRate: 0.05,
          drainSeconds: DRAIN_SECONDS,
          graceSeconds: 300,
          env: setup.env,
        },
        log,
      );
      const held =
        result.acknowledged === result.sent &&
        result.lost === 0 &&
        result.doubled === 0 &&
        result.drainedAfterSeconds !== null &&
        result.drainedAfterSeconds <= DRAIN_SECONDS;
      const { ratePerSecond, sent, acknowledged, drainedAfterSeconds, late, lost, doubled, peakBacklog } = result;
      runs.push({ ratePerSecond, sent, acknowledged, drainedAfterSeconds, late, lost, doubled, peakBacklog, held });
      if (!held) break;
    } finally {
      await setup.done();
    }
  }
  return runs;
}

export async function sustainedScenario(
  profile: SustainedProfile,
  log: (line: string) => void,
): Promise<SustainedScenario> {
  const lowdb = await climb(
    profile.rates.lowdb,
    profile.seconds,
    async () => ({ env: {}, done: async () => undefined }),
    log,
  );
  const result: SustainedScenario = { seconds: profile.seconds, lowdb };
  if (await probePostgres()) {
    result.postgres = await climb(
      profile.rates.postgres,
      profile.seconds,
      async () => {
        const database = await freshDatabase();
        return { env: { DATABASE_URL: database.url }, done: () => database.drop() };
      },
      log,
    );
  }
  return result;
}

/** The highest rate held, or 0. */
export const highestHeld = (runs: SustainedRun[] | undefined) =>
  Math.max(0, ...(runs ?? []).filter((run) => run.held).map((run) => run.ratePerSecond));
