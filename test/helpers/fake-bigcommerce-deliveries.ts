// The fake BigCommerce's webhook deliveries (fake-bigcommerce.ts keeps the hooks): to every active hook of the
// scope, the payload BigCommerce documents (scope, store_id, data {type, id}, hash, created_at, producer) with
// Standard Webhooks headers signed with the client secret of whoever created the hook (the app, or the store's API
// account), plus the hook's own headers ("Webhooks", "Webhook events").
import { createHmac, randomUUID } from 'node:crypto';
import { outbound } from './outbound-post.ts';
import type { FakeBigCommerce, FakeStore } from './fake-bigcommerce-store.ts';

export type DeliveryOptions = NonNullable<Parameters<FakeBigCommerce['deliver']>[2]>;

/** Posts a webhook for an order to each active hook of the scope on the store; the status of each. */
export async function deliverToHooks(
  store: FakeStore,
  scope: string,
  orderId: number,
  options: DeliveryOptions,
): Promise<number[]> {
  const statuses: number[] = [];
  for (const hook of store.hooks.filter((candidate) => candidate.scope === scope && candidate.is_active)) {
    const data = { type: 'order', id: orderId };
    const body = JSON.stringify({
      scope,
      store_id: '1001234567',
      data,
      hash: options.hash ?? createHmac('sha1', 'bc').update(JSON.stringify(data)).digest('hex'),
      created_at: options.createdAt ?? Math.floor(Date.now() / 1000),
      producer: `stores/${store.hash}`,
    });
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(hook.headers ?? {}) };
    const signWith = options.signWith === undefined ? hook.signingSecret : options.signWith;
    if (signWith) {
      const id = `msg_${randomUUID()}`;
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha256', signWith).update(`${id}.${timestamp}.${body}`).digest('base64');
      Object.assign(headers, {
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${signature}`,
      });
    }
    statuses.push((await outbound('POST', hook.destination, headers, body, 5_000)).status);
  }
  return statuses;
}
