// The platform-neutral order event. Adapters make them from webhooks and from
// resync; the core never sees a platform payload.
import { z } from 'zod';

export const FACTS = ['placed', 'paid', 'fulfilled', 'partiallyRefunded', 'fullyRefunded', 'cancelled'] as const;
export type Fact = (typeof FACTS)[number];

const decimal = z.string().regex(/^-?\d+(\.\d+)?$/, { error: 'must be a decimal number as a string' });

export const orderEventSchema = z.object({
  platform: z.string().min(1).max(32),
  shop: z.string().min(1).max(255),
  /** Exact decimal digits (ids exceed 2^53): never a JS number. */
  orderId: z.string().regex(/^\d{1,40}$/, { error: 'must be the order id as decimal digits' }),
  orderName: z.string().max(255),
  /** What identifies the delivery that carried this event, for dedupe. */
  deliveryId: z.string().min(1).max(512),
  occurredAt: z.iso.datetime({ offset: true }),
  /** What the event shows to be true of the order. Facts only ever become true. */
  facts: z.array(z.enum(FACTS)),
  customer: z.object({
    name: z.string().max(255).nullable(),
    email: z.string().max(320).nullable(),
    /** E.164 when the adapter could normalise it. */
    mobile: z.string().max(32).nullable(),
  }),
  /**
   * The order's total in the shop's currency; with the total the customer saw
   * (presentment) when that was another currency. null when the event does not
   * carry it (a refund event).
   */
  total: z
    .object({
      amount: decimal,
      currency: z.string().max(8),
      presentment: z.object({ amount: decimal, currency: z.string().max(8) }).optional(),
    })
    .nullable(),
  /**
   * The goods after discounts, before shipping and tax, in the shop's
   * currency: what CONVERSION_PURCHASE_AMOUNT=subtotal sends. null when the
   * event does not carry it.
   */
  subtotal: decimal.nullable().optional(),
  /**
   * Refunds the event knows of, by the platform's refund id, with the currency
   * of the amount when known. The core adds them up, in the shop's currency,
   * against the order's total to tell a full refund from a partial one.
   */
  refunds: z
    .array(
      z.object({ id: z.string().min(1).max(64), amount: decimal, currency: z.string().max(8).nullable().optional() }),
    )
    .default([]),
  test: z.boolean(),
  /** Where the order was placed (web, pos, ...), when the platform says. */
  source: z.string().max(64).nullable(),
  /** Set by an adapter that knows the referral from the platform itself. */
  referral: z.object({ campaignId: z.number().int().positive() }).optional(),
  discountCodes: z.array(z.object({ code: z.string().max(255), amount: decimal })),
  /**
   * The event lists every discount code the order has now, so an empty list says it has none (a code removed from
   * the order since: the order no longer pays with it). Otherwise an empty list may only mean the event does not say.
   */
  discountCodesComplete: z.boolean().optional(),
  /** Note and cart attributes, for referral attribution. */
  attributes: z.record(z.string(), z.string()).default({}),
  /** The landing page URL (or path and query) of the visit that placed the order. */
  landingSite: z.string().max(2048).nullable().default(null),
  /**
   * The platform withheld the customer's e-mail or phone (protected customer
   * data, not granted to the app): missing contact details then say so,
   * instead of looking like an order without them.
   */
  protectedDataHidden: z.boolean().optional(),
});

export type OrderEvent = z.infer<typeof orderEventSchema>;
export type OrderEventInput = z.input<typeof orderEventSchema>;

/** One order, across platforms and shops. */
export const orderKey = (event: Pick<OrderEvent, 'platform' | 'shop' | 'orderId'>): string =>
  `${event.platform}:${event.shop}:${event.orderId}`;
