// Claims racing on PostgreSQL: two instances, two claimers each, claims of
// one to three orders among shops of every shape (a WooCommerce address with
// ':' in it, a shop with only orders due later, one passed over). Every due
// order is handed out exactly once, none is missed, none due later is taken,
// and the shop passed over keeps its orders until it is no longer skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../src/core/order-record.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { foldEvents, twoInstances, type OpenedTestStore } from '../helpers/postgres-store.ts';

describe.skipIf(!postgresAvailable())('PostgreSQL: claims racing between instances', () => {
  let instances: Awaited<ReturnType<typeof twoInstances>>;
  let first: Awaited<ReturnType<typeof twoInstances>>['first'];
  let second: OpenedTestStore;
  beforeAll(async () => {
    instances = await twoInstances({ poolSize: 4 });
    ({ first, second } = instances);
  });
  afterAll(() => instances?.close());

  it('hands every due order out once, across instances, and none due later', async () => {
    const shops = ['a.example', 'b.example', 'https://woo.example:8443', 'https://woo.example', 'z.example'];
    let n = 0;
    const due: string[] = [];
    for (const shop of shops) {
      const records = await foldEvents(
        first.store,
        Array.from({ length: 12 }, () => orderEvent({ orderId: String(9_000 + n++), shop, facts: ['paid'] })),
      );
      due.push(...records.map((record) => record.key));
    }
    // A shop whose one order is due only tomorrow.
    const [later] = await foldEvents(first.store, [
      orderEvent({ orderId: String(9_000 + n++), shop: 'later.example', facts: ['paid'] }),
    ]);
    await first.store.database.write(`UPDATE lb_orders SET due_at = now() + interval '1 day' WHERE key = $1`, [
      later!.key,
    ]);
    const skipped = new Set(['testshop:z.example']);

    const claimed: OrderRecord[] = [];
    const claimer = async (store: OpenedTestStore['store'], name: string) => {
      for (let round = 0; ; round++) {
        const got = await store.claimDue(name, (round % 3) + 1, 600_000, undefined, skipped);
        if (got.length === 0) return;
        claimed.push(...got);
      }
    };
    await Promise.all([
      claimer(first.store, 'first-1'),
      claimer(first.store, 'first-2'),
      claimer(second.store, 'second-1'),
      claimer(second.store, 'second-2'),
    ]);

    const keys = claimed.map((record) => record.key);
    const expected = due.filter((key) => !key.startsWith('testshop:z.example:'));
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort()).toEqual([...expected].sort());
    // The skipped shop's orders wait for it, and the order due later for its time.
    const rest = await second.store.claimDue('after', 100, 600_000);
    expect(rest.map((record) => record.key).sort()).toEqual(
      due.filter((key) => key.startsWith('testshop:z.example:')).sort(),
    );
  });
});
