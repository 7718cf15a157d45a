// The smallest platform there is, in one file: PocketShop, made up, with its webhooks alone (docs/development.md,
// "Adding a platform"). It signs each delivery's exact body with HMAC-SHA256 of the store's webhook secret, in hex,
// in x-pocketshop-signature, and the body names everything else: its id, topic and shop, and the paid order.
// Checking, keys, erasure and what the bridge demands of an adapter are the shared builder's.
import { asRecord, asString, decimalText, idDigits, isoTime } from '../../../adapters/shared/json.ts';
import { shapeOf } from '../../../adapters/shared/kept-fields.ts';
import { signedWebhookAdapter, type PlatformOrderEvent } from '../../../adapters/shared/signed-webhooks.ts';
import type { PlatformModule } from '../../../src/core/platform-module.ts';
import { secret, text } from '../../../src/setting-kinds.ts';

export const SIGNATURE = 'x-pocketshop-signature';

const settings = { POCKETSHOP_STORE: text().optional(), POCKETSHOP_WEBHOOK_SECRET: secret(16).optional() };

export const pocketShopAdapter = (webhookSecret: string) =>
  signedWebhookAdapter({
    platform: 'pocketshop',
    signature: { header: SIGNATURE, encoding: 'hex' },
    secrets: async () => [webhookSecret],
    read: (body) => body,
    describe: (body) => ({
      topic: asString(body.topic) ?? '',
      shop: asString(body.shop) ?? '',
      id: asString(body.id) ?? '',
    }),
    async translate(body, stored) {
      const order = asRecord(body.order);
      const total = decimalText(order.total) ?? '';
      const id = idDigits(order.id) ?? '';
      // Anything missing or malformed here fails the bridge's schema: a dead letter that says where.
      const paid = {
        orderId: id,
        orderName: `#${asString(order.number) ?? id}`,
        deliveryId: `${stored.topic}:${id}`,
        occurredAt: isoTime(order.paid_at) ?? stored.sentAt,
        facts: ['placed', 'paid'],
        customer: { name: null, email: asString(order.email), mobile: null },
        total: { amount: total, currency: asString(order.currency) ?? '' },
        subtotal: total,
        test: false,
        source: null,
        discountCodes: [],
      } satisfies PlatformOrderEvent;
      return { kind: 'events', events: [paid] };
    },
    // All the ledger keeps of a body: what translate reads.
    kept: shapeOf(['order.id', 'order.number', 'order.total', 'order.currency', 'order.email', 'order.paid_at']),
    personal: { personal: new Set(['email']), emailKeys: new Set(['email']), phoneKeys: new Set(), orderIdKeys: [] },
  });

export const pocketShop: PlatformModule<typeof settings> = {
  name: 'pocketshop',
  names: { platform: 'PocketShop', shop: 'shop', admin: 'your PocketShop dashboard' },
  settings,
  checkSettings: (given) =>
    given.POCKETSHOP_STORE && !given.POCKETSHOP_WEBHOOK_SECRET
      ? [{ key: 'POCKETSHOP_WEBHOOK_SECRET', message: 'is required with POCKETSHOP_STORE' }]
      : [],
  configured: (given) => Boolean(given.POCKETSHOP_STORE),
  build({ POCKETSHOP_STORE: store, POCKETSHOP_WEBHOOK_SECRET: webhookSecret }) {
    if (!store || !webhookSecret) return undefined;
    return {
      webhooks: {
        adapter: pocketShopAdapter(webhookSecret),
        admitShop: async (shop) =>
          shop === store ? undefined : `${shop} is not the PocketShop shop this bridge serves`,
        onStored: async () => {},
      },
    };
  },
  // Nothing more: no records, no demo, none of the CLI's words, its shops named as written, the neutral look.
  sharedRecords: [],
  records: {},
  needs: { orders: null, subscriptions: null },
  demo: null,
  shopName: null,
  unconfirmedWhy: null,
  look: null,
};
