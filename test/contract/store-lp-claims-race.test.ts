// PostgreSQL registers lp_orderids in one statement a batch (insert, or read
// the owner there already; an instance's registrations that come together go
// in one batch). Claims of the same ids race from two instances at once, many
// rounds over: each id ends with exactly one owner, one of those
// that claimed it, and every claimant hears that owner, including those
// whose insert waited on another's uncommitted one (the statement's own
// snapshot does not see it; the read after does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/postgres.ts';
import { twoInstances, type OpenedTestStore } from '../helpers/postgres-store.ts';

describe.skipIf(!postgresAvailable())('PostgreSQL: lp_orderid claims racing', () => {
  let instances: Awaited<ReturnType<typeof twoInstances>>;
  let first: Awaited<ReturnType<typeof twoInstances>>['first'];
  let second: OpenedTestStore;
  beforeAll(async () => {
    instances = await twoInstances({ poolSize: 6 });
    ({ first, second } = instances);
  });
  afterAll(() => instances?.close());

  it('gives each id one owner, and every claimant hears it', async () => {
    for (let round = 0; round < 40; round++) {
      const ids = [`race-${round}-a`, `race-${round}-b`];
      const claims = ids.flatMap((id) =>
        Array.from({ length: 6 }, (_, n) => {
          const store = n % 2 === 0 ? first.store : second.store;
          const key = `testshop:shop-${n}:${id}`;
          return store.claimLpOrderId(id, key).then((owner) => ({ id, key, owner }));
        }),
      );
      const answers = await Promise.all(claims);
      for (const id of ids) {
        const heard = answers.filter((answer) => answer.id === id);
        const owners = new Set(heard.map((answer) => answer.owner));
        expect(owners.size).toBe(1);
        const [owner] = owners;
        expect(heard.map((answer) => answer.key)).toContain(owner);
        // Claimed again afterwards, by anyone: the same owner.
        expect(await second.store.claimLpOrderId(id, 'someone:else:1')).toBe(owner);
      }
    }
  });
});
