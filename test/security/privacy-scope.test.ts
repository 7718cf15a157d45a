// Privacy touches only whom it names, on both backends: a phone number is
// compared whole (never by the digits it ends with), and a shop's erasure
// takes that shop, never another whose name starts the same
// (example.com and example.com:8443 are two WooCommerce stores).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { DeliveryRedactor, LedgerStore } from '../../src/core/store/ledger-store.ts';
import { createWooAdapter } from '../../adapters/woocommerce/adapter.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { openPostgresStore } from '../../src/core/store/postgres/open-postgres.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';

const untouched: DeliveryRedactor = (delivery) => ({ about: false, redacted: delivery });
let sequence = 0;

async function fold(store: LedgerStore, event: OrderEvent): Promise<void> {
  const key = `privacy-scope-${++sequence}`;
  await store.accept({ key, aliases: [], receivedAt: new Date().toISOString(), retry: null, events: [event] });
  const claimed = await store.claimInbox('me', 100, 60_000);
  await store.commitIntake(
    claimed.map((entry) => ({ entryKey: entry.key, ...(entry.events ? { events: entry.events } : {}) })),
  );
}

describe.each([
  ['lowdb', true],
  ['postgres', postgresAvailable()],
])('the %s store', (backend, available) => {
  let store: LedgerStore;
  let close: () => Promise<void> = async () => undefined;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (!available) return;
    if (backend === 'lowdb') {
      const lowdb = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
      await lowdb.open();
      store = lowdb;
      close = () => lowdb.close();
      return;
    }
    database = await freshDatabase();
    const opened = await openPostgresStore({
      url: database.url,
      dedupeWindowMs: 86_400_000,
      logger: createLogger({ level: 'silent' }),
      poolSize: 4,
    });
    await opened.store.open();
    store = opened.store;
    close = async () => {
      await opened.store.close();
      await opened.release();
    };
  });
  afterAll(async () => {
    await close();
    await database?.drop();
  });

  it.skipIf(!available)('erases a customer by phone only where the whole number is theirs', async () => {
    const theirs = orderEvent({
      platform: 'woocommerce',
      shop: 'phones.example',
      orderId: '5101',
      facts: ['paid'],
      customer: { name: 'Ada', email: 'ada@example.com', mobile: '+12125550142' },
    });
    // Ends with the same digits, and the same last seven: another customer.
    const endsTheSame = orderEvent({
      platform: 'woocommerce',
      shop: 'phones.example',
      orderId: '5102',
      facts: ['paid'],
      customer: { name: 'Bo', email: 'bo@example.com', mobile: '+3312125550142' },
    });
    const lastSeven = orderEvent({
      platform: 'woocommerce',
      shop: 'phones.example',
      orderId: '5103',
      facts: ['paid'],
      customer: { name: 'Cy', email: 'cy@example.com', mobile: '+447700555014' },
    });
    for (const event of [theirs, endsTheSame, lastSeven]) await fold(store, event);
    const email = async (orderId: string) =>
      (await store.getOrder(`woocommerce:phones.example:${orderId}`))?.snapshot.customer.email;

    // Seven digits alone name no one; nor does a national number, which could be one customer's in each country.
    expect((await store.exportCustomer({ emails: [], phones: ['5550142'], orderIds: [] }, untouched)).orders).toEqual(
      [],
    );
    expect(
      (await store.exportCustomer({ emails: [], phones: ['(212) 555-0142'], orderIds: [] }, untouched)).orders,
    ).toEqual([]);
    await store.eraseCustomer(
      { emails: [], phones: ['+1 212-555-0142'], orderIds: [] },
      untouched,
      new Date().toISOString(),
    );
    expect(await email('5101')).toBeNull();
    expect(await email('5102')).toBe('bo@example.com');
    expect(await email('5103')).toBe('cy@example.com');
  });

  it.skipIf(!available)(
    'reads a phone in a kept body in its own address’s country, and a body that does not parse by its whole e-mail addresses',
    async () => {
      const woo = createWooAdapter({ secrets: 'unused' });
      const redactor: DeliveryRedactor = (delivery) => woo.redact(delivery, match);
      const delivery = (body: string) => ({
        platform: 'woocommerce',
        topic: 'order.updated',
        shop: 'phones.example',
        sentAt: new Date().toISOString(),
        headers: {},
        body,
        bodyEncoding: 'utf8' as const,
      });
      // Bob in the US wrote his number without its country code; Alice in the UK has the same digits after +44.
      await store.addDeadLetter({
        id: 'bob-us',
        kind: 'delivery',
        reason: 'unusable',
        platform: 'woocommerce',
        shop: 'phones.example',
        delivery: delivery(
          JSON.stringify({
            id: 'x1',
            billing: { first_name: 'Bob', email: 'bob@example.com', phone: '207-946-0000', country: 'US' },
          }),
        ),
      });
      // Joanna's delivery was cut short: not JSON, judged by its whole e-mail addresses.
      await store.addDeadLetter({
        id: 'joanna',
        kind: 'delivery',
        reason: 'unusable',
        platform: 'woocommerce',
        shop: 'phones.example',
        delivery: delivery('{"id": 77, "billing": {"email": "joanna@example.com", "phone": '),
      });
      const match = { emails: ['anna@example.com'], phones: ['+44 20 7946 0000'], orderIds: [] };
      expect((await store.exportCustomer(match, redactor)).deadLetters).toEqual([]);
      await store.eraseCustomer(match, redactor, new Date().toISOString());
      expect((await store.getDeadLetter('bob-us'))?.delivery?.body).toContain('bob@example.com');
      expect((await store.getDeadLetter('joanna'))?.delivery?.body).toContain('joanna@example.com');
      // Bob himself, by his whole number, is found.
      expect(
        (
          await store.exportCustomer({ emails: [], phones: ['+1 207 946 0000'], orderIds: [] }, (each) =>
            woo.redact(each, { emails: [], phones: ['+1 207 946 0000'], orderIds: [] }),
          )
        ).deadLetters.map((letter) => letter.id),
      ).toEqual(['bob-us']);
    },
  );

  it.skipIf(!available)('erases a shop whole, and not another shop whose name starts the same', async () => {
    const leaving = orderEvent({ platform: 'woocommerce', shop: 'example.com', orderId: '6101', facts: ['paid'] });
    const staying = orderEvent({ platform: 'woocommerce', shop: 'example.com:8443', orderId: '6102', facts: ['paid'] });
    for (const event of [leaving, staying]) await fold(store, event);
    const stayingKey = 'woocommerce:example.com:8443:6102';
    expect(await store.claimLpOrderId('lp-6102', stayingKey)).toBe(stayingKey);
    await store.addDeadLetter({
      id: 'scope-leaving',
      kind: 'call',
      reason: 'refused',
      orderKey: 'woocommerce:example.com:6101',
      operation: 'earn',
    });
    await store.addDeadLetter({
      id: 'scope-staying',
      kind: 'call',
      reason: 'refused',
      orderKey: stayingKey,
      operation: 'earn',
    });

    await store.eraseShop('woocommerce', 'example.com');
    expect(await store.getOrder('woocommerce:example.com:6101')).toBeUndefined();
    expect(await store.getDeadLetter('scope-leaving')).toBeUndefined();
    expect(await store.getOrder(stayingKey)).toBeDefined();
    expect(await store.getDeadLetter('scope-staying')).toBeDefined();
    // The lp_orderid is still the staying order's: another order cannot take it.
    expect(await store.claimLpOrderId('lp-6102', 'woocommerce:other.example:1')).toBe(stayingKey);
  });
});
