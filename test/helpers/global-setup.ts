// Runs once before every test file: finds out whether PostgreSQL answers, so
// that its suites run against it or skip, and says so in one line when they skip.
import { PG_ADMIN_URL, probePostgres } from './postgres.ts';

export default async function setup(): Promise<void> {
  const available = await probePostgres();
  process.env.LB_POSTGRES_AVAILABLE = available ? '1' : '0';
  if (!available) {
    const where = new URL(PG_ADMIN_URL);
    process.stdout.write(`PostgreSQL suites skipped: no server answered at ${where.host} (set PG_TEST_URL, or run .ci/run, which starts one)\n`);
  }
}
