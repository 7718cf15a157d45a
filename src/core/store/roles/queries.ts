// The operator's queries: lists, counts and figures for pages, status and metrics. None of them changes anything.
import type { Lane, LaneCounts, ShopLaneCounts } from '../../lanes.ts';
import type { OrderRecord } from '../../order-record.ts';
import type { OrderCounts, OrderSummary } from '../../order-summary.ts';

export interface OrderQuery {
  platform?: string | undefined;
  shop?: string | undefined;
  state?: string | undefined;
  reason?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** Part of the order id, number or the customer's e-mail. */
  q?: string | undefined;
  page: number;
  limit: number;
}

export interface StoreStats {
  inboxBacklog: number;
  activeOrders: number;
}

/** The secret values a ledger holds (record-secrets.ts lists the fields), by how they are kept, as this instance sees them. */
export interface SecretCounts {
  plain: number;
  /** Under SECRETS_KEY. */
  current: number;
  /** Under SECRETS_KEY_PREVIOUS. */
  previous: number;
  /** Under a key this instance does not hold (or sealed, while no key is set). */
  unknown: number;
}

export interface SecretsNote {
  level: 'info' | 'warn';
  message: string;
}

/** Secrets at rest as status and the start show them: key ids (digests, never keys), counts, and what to do. */
export interface SecretsStatus {
  keyId: string | null;
  previousKeyId: string | null;
  counts: SecretCounts;
  notes: SecretsNote[];
}

export interface OperatorQueries {
  listOrders(query: OrderQuery): Promise<{ total: number; orders: OrderSummary[] }>;
  countOrders(): Promise<OrderCounts>;
  /** Per lane: orders with work pending, how many are due now, and since when the oldest waits. */
  laneCounts(): Promise<Record<Lane, LaneCounts>>;
  /** The same, per shop with work pending: each account's figures are the sum of its shops'. */
  laneCountsByShop(): Promise<ShopLaneCounts[]>;
  /**
   * A customer's orders, on every platform and shop, by their e-mail (any case) or their phone (E.164): read
   * through what indexes them (lowdb: each settled chunk's customer filter, PostgreSQL: lb_orders_email and
   * lb_orders_mobile), never the whole ledger. The storefront's count where the service gives no figures.
   */
  customerOrders(customer: { email: string } | { mobile: string }): Promise<OrderRecord[]>;
  stats(): Promise<StoreStats>;
  /** The secrets the ledger holds, by the key that sealed them, and what the operator should know (status). */
  secretsStatus(): Promise<SecretsStatus>;
}
