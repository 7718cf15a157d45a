// What a customer's erasure records on an inbox entry, and which orders folded from it that reaches (issue 64):
// the orders of their events alone, or every order of a raw delivery about them but those the request leaves alone.
import { describe, expect, it } from 'vitest';
import type { InboxEntry, StoredDelivery } from '../../src/core/delivery.ts';
import { erasedEntry, reachedAt } from '../../src/core/store/entry-erasure.ts';
import type { CustomerMatch, DeliveryRedactor } from '../../src/core/store/ledger-store.ts';
import { orderEvent } from '../helpers/order-events.ts';

const match: CustomerMatch = { emails: ['ann@example.com'], phones: [], orderIds: [] };
const entry = (parts: Partial<InboxEntry>): InboxEntry => ({
  key: 'k',
  aliases: [],
  receivedAt: '2026-11-01T00:00:00.000Z',
  retry: null,
  ...parts,
});
const contact = (email: string) => ({ name: email, email, mobile: null });
const notAbout: DeliveryRedactor = (delivery) => ({ about: false, redacted: delivery });
const about: DeliveryRedactor = (delivery) => ({ about: true, redacted: { ...delivery, body: '{}' } });
const delivery: StoredDelivery = {
  platform: 'testshop',
  topic: 'orders/paid',
  shop: 'shop-1',
  sentAt: '2026-11-01T00:00:00.000Z',
  headers: {},
  body: '{"email":"ann@example.com"}',
  bodyEncoding: 'utf8',
};

describe('a customer’s erasure on an inbox entry', () => {
  it('strips their events, records their orders, and leaves another customer’s', () => {
    const theirs = orderEvent({ orderId: '1', facts: ['paid'], customer: contact('Ann@example.com') });
    const others = orderEvent({ orderId: '2', facts: ['paid'], customer: contact('bob@example.com') });
    const erased = erasedEntry(entry({ events: [theirs, others] }), match, notAbout, 'at-1')!;

    expect(erased.events!.map((event) => event.customer.email)).toEqual([null, 'bob@example.com']);
    expect(erased.erasures).toEqual([{ at: 'at-1', orders: ['testshop:shop-1:1'] }]);
    expect(reachedAt(erased.erasures, 'testshop:shop-1:1')).toBe('at-1');
    expect(reachedAt(erased.erasures, 'testshop:shop-1:2')).toBeUndefined();
  });

  it('reaches every order of a delivery about them but those the request leaves alone, the latest erasure last', () => {
    const first = erasedEntry(
      entry({ delivery }),
      { ...match, exceptOrderKeys: ['testshop:shop-1:9'] },
      about,
      'at-1',
    )!;
    expect(first.delivery!.body).toBe('{}');
    expect(reachedAt(first.erasures, 'testshop:shop-1:3')).toBe('at-1');
    expect(reachedAt(first.erasures, 'testshop:shop-1:9')).toBeUndefined();

    const second = erasedEntry(first, match, about, 'at-2')!;
    expect(second.erasures).toHaveLength(2);
    expect(reachedAt(second.erasures, 'testshop:shop-1:3')).toBe('at-2');
    expect(reachedAt(second.erasures, 'testshop:shop-1:9')).toBe('at-2');
  });

  it('leaves an entry not about them as it is', () => {
    const others = orderEvent({ orderId: '2', facts: ['paid'], customer: contact('bob@example.com') });
    expect(erasedEntry(entry({ events: [others] }), match, notAbout, 'at-1')).toBeUndefined();
    expect(erasedEntry(entry({ delivery }), match, notAbout, 'at-1')).toBeUndefined();
    expect(reachedAt(undefined, 'testshop:shop-1:2')).toBeUndefined();
  });
});
