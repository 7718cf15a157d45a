// Each instance hears of new work on one LISTEN session of its own (notifications.ts). A store opened twice (a test,
// then its engine) kept a second session nobody would end, still connected when its database was dropped; and a
// session that finished connecting after the store closed stayed connected. Both are gone.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkNotifications } from '../../src/core/store/postgres/notifications.ts';
import { eventually } from '../helpers/engine.ts';
import { PG_ADMIN_URL, postgresAvailable } from '../helpers/postgres.ts';
import { freshStore } from '../helpers/postgres-store.ts';

describe('the instance’s work listener', () => {
  it('ends a session that connects after the store closed', async () => {
    let connected!: (client: pg.Client) => void;
    const notifications = new WorkNotifications(() => new Promise((resolve) => (connected = resolve)));
    const listening = notifications.listen();
    await notifications.close();
    let ended = false;
    const session = Object.assign(new (class extends EventTarget {})(), {
      on: () => session,
      query: async () => ({ rows: [] }),
      end: async () => void (ended = true),
    });
    connected(session as unknown as pg.Client);
    await listening;
    expect(ended).toBe(true);
  });

  describe.skipIf(!postgresAvailable())('on PostgreSQL', () => {
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    const closers: Array<() => Promise<void>> = [];
    afterAll(async () => {
      for (const close of closers) await close().catch(() => undefined);
      await admin.end().catch(() => undefined);
    });

    it('listens on one session however often the store is opened, and on none once it closed', async () => {
      await admin.connect();
      const opened = await freshStore();
      closers.push(() => opened.close());
      const name = new URL(opened.database.url).pathname.slice(1);
      const listening = async () =>
        (
          await admin.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN lb_work'`,
            [name],
          )
        ).rows[0]!.n;
      // The engine opens the store its caller opened already.
      await opened.store.open();
      await opened.store.open();
      expect(await listening()).toBe(1);
      await opened.store.close();
      await eventually(async () => expect(await listening()).toBe(0));
    });
  });
});
