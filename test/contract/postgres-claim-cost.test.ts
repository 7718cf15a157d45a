// A claim's cost on PostgreSQL follows its size, not the backlog: with one
// shop's 100,000 orders beside four small shops, a claim of two reads a few
// hundred buffers (about 200 here), whichever plan PostgreSQL keeps for the prepared
// statement (generic or custom) and wherever the turns stand (a walk that
// goes round past the large shop and back to the start included), where
// reading the table once is about 17,000. Measured in buffers from the plan,
// not in time: the same on any machine. Each of these read the table or the
// lane's index whole, and would fail here: the probe of whether a shop
// offers work planned as a scan of the table; the walk's second pass bounded
// by a row comparison, which does not end an index scan; the candidates
// joined to the table under a generic plan. (Known, and left: with five
// shops, one of them most of the table, PostgreSQL reads a small shop's first
// due order from the (due_at) index across shops, so a probe reads as many of
// the large shop's orders as fall due before the small shop's first; here
// they fall due side by side. With many shops it reads the shop's own range.)
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueStatement } from '../../src/core/store/postgres/orders.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { foldEvents, freshStore } from '../helpers/postgres-store.ts';

const LARGE = 100_000;
const SMALL_SHOPS = ['c', 'd', 'e', 'f'];

interface PlanNode {
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  'Actual Rows': number;
}

describe.skipIf(!postgresAvailable())('PostgreSQL: what a claim reads', () => {
  let opened: Awaited<ReturnType<typeof freshStore>>;
  let client: pg.Client;

  beforeAll(async () => {
    opened = await freshStore();
    const [seed] = await foldEvents(opened.store, [orderEvent({ orderId: '1', shop: 'seed', facts: ['paid'] })]);
    // Rows shaped as the bridge writes them (the seed's own fold and progress), due in the backfill lane. Every
    // shop's orders fall due from one instant, a millisecond apart: the small shops' first ones beside the large
    // shop's first. (Due from each insert's own now(), the small shops' came after as many of the large shop's as
    // the large insert took milliseconds, which a probe across shops then read: the figure followed the
    // machine's load, 6,325 buffers one run and 5,800 the next.)
    const from = new Date(Date.now() - 3_600_000);
    const insert = (shop: string, count: number) =>
      opened.store.database.write(
        `INSERT INTO lb_orders (key, platform, shop, order_id, updated_at, due_at, fold, progress, lane)
         SELECT 'testshop:' || $1 || ':' || g, 'testshop', $1, g::text, now(), $4::timestamptz + g * interval '1 ms',
                s.fold, s.progress, 'backfill'
           FROM generate_series(1, $2::int) g, lb_orders s WHERE s.key = $3`,
        [shop, count, seed!.key, from],
      );
    await insert('big', LARGE);
    for (const shop of SMALL_SHOPS) await insert(shop, 50);
    client = new pg.Client(opened.database.url);
    await client.connect();
    await client.query('VACUUM ANALYZE lb_orders');
    await client.query(`PREPARE claim(text, int, float8, text[], text, text) AS ${claimDueStatement('backfill').text}`);
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await opened?.close();
  });

  /** A claim of two after the given shop, its plan run and undone: the buffers it read, and the orders it claimed. */
  async function claimOfTwo(mode: 'force_generic_plan' | 'force_custom_plan', after: [string, string]) {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        // EXPLAIN takes no parameters of its own: the shop served last goes in as literals.
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE claim('w', 2, 60000, '{}', ${after
          .map((part) => client.escapeLiteral(part))
          .join(', ')})`,
      );
      const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      return { buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'], claimed: plan['Actual Rows'] };
    } finally {
      await client.query('ROLLBACK');
    }
  }

  it.each(['force_generic_plan', 'force_custom_plan'] as const)(
    'reads under a thousand buffers for a claim of two, whatever one shop’s backlog (%s)',
    async (mode) => {
      // From the start; from just before the large shop; and from a small shop after it, so that the walk
      // goes on past the large shop and round to the start (both passes).
      for (const after of [
        ['', ''],
        ['testshop', 'a'],
        ['testshop', 'c'],
      ] as Array<[string, string]>) {
        const { buffers, claimed } = await claimOfTwo(mode, after);
        expect(claimed).toBe(2);
        // The table is about 17,000 pages, the lane's (lane, due_at) index read whole about 87,000 buffers.
        expect(buffers).toBeLessThan(1_000);
      }
    },
  );
});
