// A BigCommerce store's erasure forgets every dedupe key that names it: the payload's key (store hash, scope, hash and
// time) is one, so the adapter says what such keys start with, and no other store's start so.
import { expect, it } from 'vitest';
import { createBigCommerceAdapter } from '../../adapters/bigcommerce/adapter.ts';
import type { BigCommerceDelivery } from '../../adapters/bigcommerce/verify.ts';

const delivery = (storeHash: string, webhookId?: string): BigCommerceDelivery => ({
  webhookId,
  scope: 'store/order/statusUpdated',
  storeId: '1001',
  storeHash,
  orderId: '6000',
  hash: 'b8f2a7e1c3',
  createdAt: '1764400000',
  digest: 'digest',
  body: Buffer.from('{}'),
  payload: { scope: 'store/order/statusUpdated', data: { type: 'order', id: 6000 } },
});

it('names what every key of a store starts with, for its erasure, and no other store’s keys start so', () => {
  const adapter = createBigCommerceAdapter({ clientSecret: 'client-secret' });
  const prefix = adapter.shopKeyPrefix!;
  for (const webhookId of [undefined, 'wh-1']) {
    const own = adapter.describe(delivery('abc', webhookId));
    const other = adapter.describe(delivery('abcd', webhookId));
    const namesStore = [own.key, ...(own.aliases ?? [])].filter((key) => key.includes('abc'));
    expect(namesStore.length).toBeGreaterThan(0);
    for (const key of namesStore) expect(key.startsWith(prefix('abc'))).toBe(true);
    for (const key of [other.key, ...(other.aliases ?? [])]) expect(key.startsWith(prefix('abc'))).toBe(false);
  }
});
