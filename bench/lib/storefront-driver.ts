// What the storefront scenario (bench/scenarios/storefront.ts) asks of a platform: a bridge set up as that
// platform's app beside its fake, one store on it, and the ways that platform's merchant, customers and order
// deliveries reach the bridge. The scenario's load and figures are the same on every platform; only these differ.
// Customers are numbered 0..customers-1 (e-mail c<n>@example.com); orders by a number the driver makes an id of.
import type { RunningBridge } from '../../src/composition/main.ts';

export interface StorefrontDriverSetup {
  customers: number;
  /** The trial account's limit, and the sandbox's, in calls a minute. */
  limitPerMinute: number;
}

export interface MerchantAnswer {
  status: number;
  body: any;
  text: string;
}

export interface StorefrontDriver {
  bridge: RunningBridge;
  url: string;
  /** A merchant's call of the bridge's own API for the store, as the platform's admin makes it (PUT /storefront, ...). */
  merchant(method: 'POST' | 'PUT', path: string, body: unknown): Promise<MerchantAnswer>;
  /** The order id the sandbox records for order number `k` (negative for the ones made before the clock starts). */
  orderId(k: number): string;
  /** Order `k` of customer `n`, fulfilled or completed: its points approved. Whether the bridge took the delivery. */
  completedOrder(k: number, n: number): Promise<boolean>;
  /** Order `k` of customer `n`, paid (with the code, when one is given). Whether the bridge took the delivery. */
  paidOrder(k: number, n: number, code?: string): Promise<boolean>;
  /** Customer `n`'s points, asked for as the platform's widget asks. */
  points(n: number): Promise<Response>;
  /** Customer `n` redeems the reward, as the widget asks. */
  redeem(n: number, rewardId: string): Promise<Response>;
  /** Customer `n`'s checkout applies the code at the platform: whether it applied. */
  useCode(n: number, code: string): boolean;
  stop(): Promise<void>;
}

/** A platform's driver: its row's name in the bench's table, and how to start it. */
export interface StorefrontPlatform {
  name: string;
  start(setup: StorefrontDriverSetup): Promise<StorefrontDriver>;
}
