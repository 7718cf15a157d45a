// The records role: small collections kept by kind and id, which the core and the platforms' modules give meaning to.
import type { z } from 'zod';

/** A manual earn or redeem asked for through the admin API: who, why, and what came of it. */
export interface Adjustment {
  id: string;
  at: string;
  kind: 'earn' | 'redeem';
  /** The label of the admin token used. */
  by: string;
  reason: string;
  customer: { email?: string | undefined; mobile?: string | undefined; name?: string | undefined };
  activityId?: string | undefined;
  points?: number | undefined;
  /** The loyalty account it was sent to (accounts.ts); adjustments of earlier releases went to the default account. */
  account?: string | undefined;
  /** The shop whose own page made it; none for the operator's. */
  platform?: string | undefined;
  shop?: string | undefined;
  outcome: 'success' | 'failed' | 'unknown';
  message: string;
}

/** Per platform, the last reconciliation: its high-water mark survives restarts. */
export interface ReconciliationState {
  /** The end of the last window fetched without errors: the next window starts there, minus an overlap. */
  highWaterMark: string | null;
  lastRun: {
    startedAt: string;
    finishedAt: string;
    since: string;
    until: string;
    fetched: number;
    changed: number;
    unchanged: number;
    failed: number;
    errors: string[];
  } | null;
}

/** Whether the merchant removed the app from a shop (its older deliveries are then not processed). */
export interface ShopState {
  platform: string;
  shop: string;
  uninstalledAt: string | null;
  installedAt?: string | null | undefined;
}

/**
 * Record kinds a platform's module keeps of its own, named after it ("<platform>-<what>"): the module adds
 * each here (`declare module` on this file) and names its secret fields in PlatformModule.records.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' declarations
export interface PlatformRecordKinds {}

/**
 * Small collections kept as records by kind and id: the store keeps them,
 * the core gives them meaning. Sessions hold platform access tokens: the
 * secret fields of each kind are sealed by the store (record-secrets.ts).
 */
export type RecordKind =
  | keyof PlatformRecordKinds
  | 'shop'
  | 'session'
  | 'reconciliation'
  | 'adjustment'
  | 'resync-job'
  | 'data-request'
  | 'privacy-log'
  | 'platform-health'
  | 'migration'
  | 'allowed-shop'
  /** A destructive delivery's body (an uninstall, a redaction) that was acted on: never acted on again. Names no shop, so erasure keeps it. */
  | 'acted-once'
  /** A topic a platform was seen delivering to a shop through the app's own configuration (not a subscription of the shop's). Names no person. */
  | 'declared-delivery'
  /** A signed callback payload (by its id) and the callback it was used at, until it expires: used once. */
  | 'callback-payload'
  /** A user of a store's admin its owner removed: their sessions and earlier signed payloads open nothing. */
  | 'removed-user'
  /** A test order a shop's page sent (core/test-order.ts): counted for the shop's hourly cap, erased with the shop. */
  | 'test-order'
  /** The key of the sessions the bridge hands a store's page (src/composition/kept-page-key.ts). A secret. */
  | 'page-key'
  /** The credentials of the sandbox the bridge serves in sandbox mode, made once (src/composition/kept-sandbox-credentials.ts). A secret. */
  | 'sandbox-credentials'
  /** A loyalty account (src/accounts/account-records.ts); its apiKey is a secret, sealed like the others (record-secrets.ts). */
  | 'account'
  /** Which loyalty account a shop (platform:shop) earns on. */
  | 'shop-link'
  /** Every change to accounts and links: who, when, what (never a secret). */
  | 'audit'
  /** Whether a shop (platform:shop) shows its customers their points in the store (core/storefront/storefront-switch.ts). */
  | 'storefront'
  /** The rewards a shop (platform:shop) offers its customers for their points (core/storefront/rewards.ts). */
  | 'rewards'
  /** One customer's reservations on one account (core/storefront/reservations.ts): id account:digest of the customer. */
  | 'reward-holder'
  /** An open reward code (platform:shop:code) and the reservation it spends: the sweeper's list, the worker's lookup. */
  | 'reward-code'
  /** A customer's codes to check against their balance after an earning of theirs was cancelled (core/storefront/cover-checks.ts): by the holder's id. */
  | 'reward-check'
  /** An open code of a shop whose data was erased, by a digest of shop and text, until it can pay no more (core/storefront/erased-codes.ts). */
  | 'reward-erased-code'
  /** The pools' firsts whose holders an account's reservations went under (core/storefront/pool-firsts.ts): by the account's id. */
  | 'pool-firsts'
  /** A code made in a store after its points were let go, whose removal failed: the sweeper removes it (core/storefront/orphan-codes.ts). */
  | 'reward-orphan'
  /** When a cover check last looked at a holder (cover-checks.ts): a reservation on a read begun before lets go. */
  | 'reward-fence'
  /** Whether a shop's storefront widget (platform:shop) is on its store, as last put or checked (core/storefront/widget-keeper.ts). */
  | 'storefront-widget'
  /** The next order id of the bridge's built-in demo store (src/composition/first-run.ts). Names no shop. */
  | 'demo-order-ids';

/**
 * A record kind with its schema (record-types.ts): a read of it is parsed, and a record of the wrong shape refused.
 * `under` is the start of the ids this type names: a kind whose records have more than one shape (a platform's
 * access: a session, a connection, a connect in progress) is read as each of them by the ids each lives under.
 */
export interface RecordType<T> {
  readonly kind: RecordKind;
  readonly schema: z.ZodType<T>;
  readonly under: string;
}

/** What a change of a record asks for: a new value, its deletion, or (undefined) nothing. */
export type RecordChange<T> = { put: T } | { delete: true } | undefined;

export interface RecordRole {
  /** The record, parsed by its kind's schema (record-types.ts). */
  getRecord<T>(type: RecordType<T>, id: string): Promise<T | undefined>;
  putRecord<T>(type: RecordType<T>, id: string, value: T): Promise<void>;
  /**
   * Keeps the record only if there is none under this id, atomically across
   * instances: the first caller wins. Returns the record there is now, and
   * whether it is the one given.
   */
  addRecord<T>(type: RecordType<T>, id: string, value: T): Promise<{ added: boolean; value: T }>;
  /**
   * Changes one record by what it holds now, atomically across instances (a
   * compare-and-set): no other write to the record lands between the read
   * `change` is given and the write it answers with. `change` only decides,
   * and may be called more than once (a transaction tried again), so it must
   * not act. Returns whether a value was written or a record deleted (deleting
   * one that is not there changes nothing), and the record as it is after.
   */
  changeRecord<T>(
    type: RecordType<T>,
    id: string,
    change: (current: T | undefined) => RecordChange<T>,
  ): Promise<{ changed: boolean; value: T | undefined }>;
  deleteRecord<T>(type: RecordType<T>, id: string): Promise<void>;
  /** The records of the type's kind whose ids start with its `under`. */
  listRecords<T>(type: RecordType<T>): Promise<Array<{ id: string; value: T }>>;
}
