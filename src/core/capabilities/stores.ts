// The operator's ways to a platform's stores: the stores panel, a store connected by its address, an app
// installed on a shop, and the webhook subscriptions put right by hand.
import type { z } from 'zod';
import type { ConnectLanding, PlatformInstall, StoreConnectionView } from '../platform-shapes.ts';

/** The stores the operator's stores panel lists for it (GET /admin/api/stores). */
export interface StoreConnections {
  list(): Promise<StoreConnectionView[]>;
}

/** A store the operator connects by its address (the dashboard, `loyalty-bridge connect`): someone approves on the platform. */
export interface StoreConnect {
  /** Why no connect can start now (a setting of the bridge's), or undefined when it can. */
  problem(): string | undefined;
  /** How long a connect waits for its approval. */
  ttlMs: number;
  /** Where to send whoever approves (a link that works once), or why not this address. */
  begin(
    address: string,
    landing: ConnectLanding,
  ): Promise<
    | { ok: true; began: { authorizeUrl: string; shop: string; storeUrl: string; expiresAt: string } }
    | { ok: false; problem: string }
  >;
}

/** A platform whose app the operator installs on a shop (its consent screen), and the shops it is installed on. */
export interface PlatformInstalls {
  /** Whether an install may start now (the app and the bridge's public address are set). */
  canInstall(): boolean;
  /** What the operator is told when it cannot: the settings it needs. */
  cannotInstall: string;
  /**
   * Every shop the app has access to, each described: `access`, how, in the operator's words (and why it is not
   * served, if it is not); `expiresAt` and `scope`, its token's, where it has them.
   */
  shops(): Promise<ReadonlyArray<PlatformInstall>>;
  /** One shop's access, described, for its own page. */
  describe(shop: string): Promise<PlatformInstall>;
  /** A shop's address as the operator types it, for the install form's example. */
  example: string;
  /** What the operator sends to start one: the shop's address, as the platform writes it. */
  input: z.ZodType<{ shop: string }>;
  /** The operator (their token's label) starts an install: the shop becomes one the bridge serves; `next`: where the browser goes. */
  start(shop: string, by: string): Promise<{ next: string }>;
}

/**
 * Puts its webhook subscriptions right by hand (the CLI's register) for one shop, or each it has, telling each
 * line as it goes; `refused`: what a person must set or do first, as a clause.
 */
export interface Subscriptions {
  register(shop: string | undefined, say: (line: string) => void): Promise<{ failed: boolean } | { refused: string }>;
}
