// A customer's erasure meeting intake, on both backends (issue 64, finding 9): intake reads a delivery, the
// customer is erased, and only then does intake's step commit what it read. The order it folds is erased as if
// it had been folded before the erasure; another customer's order in the same entry keeps its contact; and a later
// delivery of the erased order adds nothing back. On PostgreSQL the two also run at once, the erasure held at a
// chosen statement: a step that commits while the erasure is between the orders and the inbox, and one that waits
// for the erasure's rewrite of its entry. test/property/store-model.test.ts found the race (its pinned cases).
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { InboxEntry, StoredDelivery } from '../../src/core/delivery.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { CustomerMatch, DeliveryRedactor, LedgerStore } from '../../src/core/store/ledger-store.ts';
import { PostgresStore } from '../../src/core/store/postgres/postgres-store.ts';
import { eventually } from '../helpers/engine.ts';
import { gate, ledgerBackends } from '../helpers/ledger-backends.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { foldEvents, freshStore } from '../helpers/postgres-store.ts';

const AT = '2026-11-02T09:00:00.000Z';
const keyOf = (event: OrderEvent) => `${event.platform}:${event.shop}:${event.orderId}`;
const matchOf = (email: string): CustomerMatch => ({ emails: [email], phones: [], orderIds: [] });
/** The events carry the customer: no raw delivery to judge. */
const noDelivery: DeliveryRedactor = (delivery) => ({ about: false, redacted: delivery });
/** A raw delivery about the customer, stripped of everyone's contact (as adapters/shared/redact.ts strips it). */
const aboutThem: DeliveryRedactor = (delivery) => ({ about: true, redacted: { ...delivery, body: '{}' } });

let sequence = 0;
function customer() {
  const n = ++sequence;
  const email = `erased-${process.pid}-${n}@example.com`;
  const event = (facts: OrderEvent['facts'], orderId = String(700_000 + n), mail = email) =>
    orderEvent({ orderId, facts, customer: { name: `Customer ${n}`, email: mail, mobile: null } });
  return { n, email, event };
}
const entryOf = (key: string, parts: Partial<InboxEntry>): InboxEntry => ({
  key,
  aliases: [],
  receivedAt: new Date().toISOString(),
  retry: null,
  ...parts,
});
const delivery = (email: string): StoredDelivery => ({
  platform: 'testshop',
  topic: 'orders/paid',
  shop: 'shop-1',
  sentAt: new Date().toISOString(),
  headers: {},
  body: JSON.stringify({ email }),
  bodyEncoding: 'utf8',
});

async function expectErased(store: LedgerStore, event: OrderEvent, email: string, facts: string[]) {
  const order = await store.getOrder(keyOf(event));
  expect(order, 'the step folded nothing').toBeDefined();
  expect(order!.facts, 'the step lost its facts').toEqual(facts);
  expect(order!.snapshot.customer, 'the order still names the erased customer').toEqual({
    name: null,
    email: null,
    mobile: null,
  });
  expect(order!.erasedAt).toEqual(expect.any(String));
  expect(await store.customerOrders({ email }), 'the order is still found by their e-mail').toEqual([]);
}

describe.each(ledgerBackends())(
  'a customer erased while intake holds their delivery, on %s',
  (_name, available, open) => {
    it.skipIf(!available)(
      'erases the order the step folds from events read before the erasure, and no one else’s',
      async () => {
        const store = await open();
        const them = customer();
        const other = customer();
        const theirs = them.event(['placed', 'paid']);
        const others = other.event(['placed']);
        await store.accept(entryOf(`events-${them.n}`, { events: [theirs, others] }));
        const [held] = await store.claimInbox('intake', 10, 60_000);
        expect(held?.events?.[0]?.customer.email).toBe(them.email);

        expect((await store.eraseCustomer(matchOf(them.email), noDelivery, AT)).inbox).toBe(1);
        await store.commitIntake([{ entryKey: held!.key, events: held!.events! }]);

        await expectErased(store, theirs, them.email, ['placed', 'paid']);
        expect((await store.getOrder(keyOf(others)))?.snapshot.customer.email).toBe(other.email);
        // As for an order the erasure found folded: a later delivery of it adds no contact back.
        await foldEvents(store, [them.event(['fulfilled'], theirs.orderId)]);
        await expectErased(store, theirs, them.email, ['placed', 'paid', 'fulfilled']);
      },
    );

    it.skipIf(!available)(
      'erases the orders the step folds from a raw delivery about the customer, read before the erasure',
      async () => {
        const store = await open();
        const them = customer();
        const theirs = them.event(['placed']);
        await store.accept(entryOf(`delivery-${them.n}`, { delivery: delivery(them.email) }));
        const [held] = await store.claimInbox('intake', 10, 60_000);

        expect((await store.eraseCustomer(matchOf(them.email), aboutThem, AT)).inbox).toBe(1);
        // What intake translated from the body as it read it, before the erasure stripped it.
        await store.commitIntake([{ entryKey: held!.key, events: [theirs] }]);

        await expectErased(store, theirs, them.email, ['placed']);
      },
    );

    it.skipIf(!available)(
      'erases the order folded later from an entry the erasure reached while it waited',
      async () => {
        const store = await open();
        const them = customer();
        const theirs = them.event(['placed']);
        await store.accept(entryOf(`waiting-${them.n}`, { events: [theirs] }));
        await store.eraseCustomer(matchOf(them.email), noDelivery, AT);

        const [held] = await store.claimInbox('intake', 10, 60_000);
        expect(held?.events?.[0]?.customer.email).toBeNull();
        await store.commitIntake([{ entryKey: held!.key, events: held!.events! }]);
        await foldEvents(store, [them.event(['paid'], theirs.orderId)]);

        await expectErased(store, theirs, them.email, ['placed', 'paid']);
      },
    );
  },
);

// --- PostgreSQL: the two at once -------------------------------------------------------------------------------------

/**
 * A second instance on the database whose next statement after one matching `after` (in any transaction) waits for
 * the gate: `reached` resolves when it waits. Its other statements run as usual.
 */
function heldStore(url: string, after: RegExp) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  const reached = gate();
  const release = gate();
  let armed = false;
  let held = false;
  const hold = async (text: string) => {
    if (armed && !held) {
      held = true;
      reached.open();
      await release.opened;
    }
    if (after.test(text)) armed = true;
  };
  const textOf = (query: unknown) => (typeof query === 'string' ? query : ((query as { text?: string }).text ?? ''));
  const work = new Proxy(pool, {
    get(target, name) {
      if (name !== 'connect') return (Reflect.get(target, name) as (...args: unknown[]) => unknown).bind(target);
      return async () => {
        const client = await target.connect();
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        return Object.assign(client, {
          query: async (...args: unknown[]) => (await hold(textOf(args[0])), query(...args)),
        });
      };
    },
  });
  const store = new PostgresStore({
    connections: {
      work,
      ack: pool,
      lease: pool,
      session: async () => {
        const client = new pg.Client({ connectionString: url });
        client.on('error', () => undefined);
        await client.connect();
        return client;
      },
    },
    migrate: async () => undefined,
  });
  return { store, reached: reached.opened, release: release.open, close: () => pool.end() };
}

/** Intake's step, run while the erasure is held: resolves once the step is where the case wants it. */
type Step = (commit: () => Promise<unknown>, url: string) => Promise<{ done: Promise<unknown> }>;

/** The customer's delivery claimed by intake on one instance, erased on another held at a statement, and `step` run. */
async function racing(after: RegExp, step: Step) {
  const opened = await freshStore();
  const held = heldStore(opened.database.url, after);
  await held.store.open();
  try {
    const them = customer();
    const theirs = them.event(['placed']);
    await opened.store.accept(entryOf(`racing-${them.n}`, { events: [theirs] }));
    const [entry] = await opened.store.claimInbox('intake', 10, 60_000);
    const erasure = held.store.eraseCustomer(matchOf(them.email), noDelivery, AT);
    await held.reached;
    const { done } = await step(
      () => opened.store.commitIntake([{ entryKey: entry!.key, events: entry!.events! }]),
      opened.database.url,
    );
    held.release();
    await Promise.all([erasure, done]);
    await expectErased(opened.store, theirs, them.email, ['placed']);
  } finally {
    held.release();
    await held.store.close();
    await held.close();
    await opened.close();
  }
}

/** Whether a statement on the inbox waits for a row another transaction holds. */
async function waitsOnTheInbox(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%lb_inbox%'`,
    );
    return rows[0]!.waiting > 0;
  } finally {
    await client.end();
  }
}

describe('a customer erased while intake commits their delivery, at once on PostgreSQL', () => {
  it.skipIf(!postgresAvailable())(
    'erases the order of a step that commits while the erasure is between the orders and the inbox',
    async () => {
      // Held after the erasure's first look at the orders, before it reads the inbox: the step commits meanwhile.
      await racing(/FROM lb_orders/, async (commit) => ({ done: Promise.resolve(await commit()) }));
    },
  );

  it.skipIf(!postgresAvailable())(
    'erases the order of a step that waits for the erasure’s rewrite of its entry',
    async () => {
      // Held right after the erasure rewrote the entry: the step's take of it waits for the erasure to commit.
      await racing(/^UPDATE lb_inbox/, async (commit, url) => {
        const done = commit();
        await eventually(async () => expect(await waitsOnTheInbox(url), 'the step did not wait').toBe(true));
        return { done };
      });
    },
  );
});
