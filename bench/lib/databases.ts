// PostgreSQL for the bench: whether a server answers (the PostgreSQL rows are
// left out when none does), fresh databases, and copies of a seeded one made
// by CREATE DATABASE … TEMPLATE, so that every run starts from the same
// history without seeding it again.
import { createDatabase, freshDatabase, probePostgres, type TestDatabase } from '../../test/helpers/postgres.ts';

export { freshDatabase, probePostgres, type TestDatabase };

export const copyDatabase = (from: TestDatabase): Promise<TestDatabase> =>
  createDatabase(`TEMPLATE ${new URL(from.url).pathname.slice(1)}`);
