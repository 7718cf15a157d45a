// A platform's API as the core reads it, for resync and reconciliation: the
// shops it reaches, orders modified in a window, one order by id, and what
// the platform says about the subscriptions (webhooks, hooks) that bring
// deliveries here.
import type { OrderEvent } from './order-event.ts';
import { z } from 'zod';
import { recordType } from './store/roles/record-types.ts';

export interface OrderWindow {
  since: Date;
  until?: Date | undefined;
}

/** One thing wrong with how deliveries reach the bridge, and what to do about it. */
export const SUBSCRIPTION_PROBLEM_KINDS = [
  'missing',
  'deleted',
  'deactivated',
  'disabled',
  'paused',
  'wrong_address',
  'wrong_version',
  'protected_data',
  'scope',
  'refused',
] as const;

export interface SubscriptionProblem {
  kind: (typeof SUBSCRIPTION_PROBLEM_KINDS)[number];
  topic: string;
  detail: string;
  fix: string;
}

export interface SubscriptionHealth {
  platform: string;
  shop: string;
  checkedAt: string;
  /** Subscriptions found right (or put right just now). */
  healthy: number;
  /** Put right by the bridge itself on this check. */
  repaired: string[];
  problems: SubscriptionProblem[];
  /** The check itself failed (no access, the platform down). */
  error?: string | undefined;
  /** The access scopes the app holds on the shop, where the platform tells them. */
  scopes?: string[] | undefined;
  /**
   * Topics the app's configuration declares that no delivery has yet shown to
   * come through it, with no subscription of the shop's own either:
   * not counted healthy; each is confirmed by its first delivery.
   */
  unconfirmed?: string[] | undefined;
}

/** The last check of a shop's subscriptions, by platform:shop ('platform-health'). */
export const HEALTH_KIND = recordType<SubscriptionHealth>(
  'platform-health',
  z.looseObject({
    platform: z.string(),
    shop: z.string(),
    checkedAt: z.string(),
    healthy: z.number(),
    repaired: z.array(z.string()),
    problems: z.array(
      z.looseObject({
        kind: z.enum(SUBSCRIPTION_PROBLEM_KINDS),
        topic: z.string(),
        detail: z.string(),
        fix: z.string(),
      }),
    ),
    error: z.string().optional(),
    scopes: z.array(z.string()).optional(),
    unconfirmed: z.array(z.string()).optional(),
  }),
);

export interface OrderSource {
  platform: string;
  shops(): Promise<string[]>;
  /** Orders modified in the window; `expected` on the iterable tells how many, once the source knows. */
  fetchOrders(shop: string, window: OrderWindow): AsyncIterable<OrderEvent> & { expected?: number | undefined };
  /** One order as the platform has it now; undefined when it has none. */
  fetchOrder(shop: string, orderId: string): Promise<OrderEvent | undefined>;
  /** Reads (and where the bridge may, puts right) the subscriptions of a shop; null: the platform has none to read. */
  readonly checkSubscriptions: ((shop: string) => Promise<SubscriptionHealth>) | null;
}
