// An uninstall is confirmed with BigCommerce before the store's token is
// forgotten. Once the app is uninstalled BigCommerce revokes the store's
// token, so at the uninstall callback the bridge asks BigCommerce with it
// (BigCommerceApi.tokenCheck):
//   refused      the uninstall is real: the token is forgotten and the store
//                marked uninstalled
//   accepted,    the app may still be installed (BigCommerce told the app
//   or unknown   before revoking, or it did not answer): the token is kept
//                and the uninstall recorded as pending in the store's 'shop'
//                record (uninstallPending), to be checked again
// The store the bridge has no app token for is simply marked uninstalled.
//
// The pending checks live in the ledger, not in a timer's memory, so they
// survive a restart and are seen by every bridge on one ledger: a pass every
// PASS_MS (one bridge at a time, by the store's exclusive lock) checks the
// stores whose next check is due, with backoff over about a day
// (RECHECK_DELAYS_MS). A token BigCommerce still accepts after the last check
// means the app is installed: the pending uninstall is dropped and the token
// kept. A BigCommerce that does not answer is asked again at the last delay
// for as long as that lasts. A reinstall (the auth callback rewrites the
// 'shop' record) ends the pending check.
import type { LedgerStore, ShopState } from '../../src/core/store/ledger-store.ts';
import type { Logger } from '../../src/logger.ts';
import type { TokenCheck } from './rest-api.ts';
import type { BigCommerceStores } from './stores.ts';

export interface PendingUninstall {
  /** When the uninstall callback came: once confirmed, the store counts as uninstalled from then. */
  since: string;
  /** Checks made so far, the callback's own included. */
  checks: number;
  nextCheckAt: string;
  /** What the last check found. */
  last: 'works' | 'unknown';
}

/** A BigCommerce store's 'shop' record, with an uninstall waiting to be confirmed. */
export interface BigCommerceShopState extends ShopState {
  uninstallPending?: PendingUninstall | undefined;
}

export type UninstallOutcome =
  | { kind: 'uninstalled'; why: 'token_refused' | 'no_token' }
  | { kind: 'pending'; why: 'token_works' | 'unknown'; nextCheckAt: string }
  /** After the last check: BigCommerce still accepts the token, so the app is installed. */
  | { kind: 'kept' }
  /** The store's record changed meanwhile (a reinstall): nothing more to do. */
  | { kind: 'superseded' };

const MINUTE = 60_000;
/** After the callback's own check, how long until each next one. */
export const RECHECK_DELAYS_MS = [5 * MINUTE, 15 * MINUTE, 60 * MINUTE, 3 * 60 * MINUTE, 6 * 60 * MINUTE, 12 * 60 * MINUTE] as const;
const PASS_MS = MINUTE;
/** The callback waits this long for BigCommerce's answer; past it, the uninstall is pending like any unknown. */
const CALLBACK_CHECK_MS = 5_000;

export interface UninstallChecksOptions {
  store: LedgerStore;
  stores: BigCommerceStores;
  logger: Logger;
  /** Tests shorten these. */
  recheckDelaysMs?: readonly number[];
  passMs?: number;
  now?: () => number;
}

const stateId = (storeHash: string) => `bigcommerce:${storeHash}`;

export class UninstallChecks {
  readonly #o: UninstallChecksOptions;
  readonly #delays: readonly number[];
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(options: UninstallChecksOptions) {
    this.#o = options;
    this.#delays = options.recheckDelaysMs?.length ? options.recheckDelaysMs : RECHECK_DELAYS_MS;
    this.#now = options.now ?? Date.now;
  }

  /** At the uninstall callback (its payload verified and its jti kept). */
  async confirm(storeHash: string): Promise<UninstallOutcome> {
    const since = new Date(this.#now()).toISOString();
    const access = await this.#o.stores.appAccess(storeHash);
    if (!access) {
      await this.#markUninstalled(storeHash, since);
      return { kind: 'uninstalled', why: 'no_token' };
    }
    const check = await withDeadline(access.api.tokenCheck(), CALLBACK_CHECK_MS);
    if (check.kind === 'refused') {
      await this.#o.stores.forget(storeHash, access.accessToken);
      await this.#markUninstalled(storeHash, since);
      return { kind: 'uninstalled', why: 'token_refused' };
    }
    const earlier = (await this.#state(storeHash))?.uninstallPending;
    const pending: PendingUninstall = { since: earlier?.since ?? since, checks: 1, nextCheckAt: this.#after(this.#delays[0]!), last: check.kind };
    await this.#putPending(storeHash, pending);
    this.#o.logger.warn(
      { platform: 'bigcommerce', shop: storeHash, found: check.kind === 'works' ? 'token still accepted' : check.reason, nextCheckAt: pending.nextCheckAt },
      'a BigCommerce uninstall callback that BigCommerce does not confirm yet (the store’s token still works, or no answer): the token is kept and the uninstall checked again later',
    );
    return { kind: 'pending', why: check.kind === 'works' ? 'token_works' : 'unknown', nextCheckAt: pending.nextCheckAt };
  }

  /** Checks every pending uninstall that is due; one bridge at a time. */
  async checkDue(): Promise<void> {
    await this.#o.store.exclusive('bigcommerce-uninstall-checks', async () => {
      const now = this.#now();
      for (const { value } of await this.#o.store.listRecords<BigCommerceShopState>('shop')) {
        const pending = value?.platform === 'bigcommerce' ? value.uninstallPending : undefined;
        if (!pending || Date.parse(pending.nextCheckAt) > now) continue;
        try {
          await this.recheck(value.shop, pending);
        } catch (error) {
          this.#o.logger.warn({ err: error, platform: 'bigcommerce', shop: value.shop }, 'could not check a pending BigCommerce uninstall; the next pass tries again');
        }
      }
    });
  }

  /** One later check of a pending uninstall. */
  async recheck(storeHash: string, pending: PendingUninstall): Promise<UninstallOutcome> {
    const access = await this.#o.stores.appAccess(storeHash);
    const check: TokenCheck = access ? await access.api.tokenCheck() : { kind: 'refused', status: 0 };
    // The record may have changed while BigCommerce was asked (a reinstall clears the flag).
    if ((await this.#state(storeHash))?.uninstallPending?.since !== pending.since) return { kind: 'superseded' };
    if (check.kind === 'refused') {
      if (access) await this.#o.stores.forget(storeHash, access.accessToken);
      await this.#markUninstalled(storeHash, pending.since);
      this.#o.logger.info(
        { platform: 'bigcommerce', shop: storeHash, checks: pending.checks + 1 },
        'BigCommerce confirmed the uninstall: the store’s token is forgotten and the store marked uninstalled',
      );
      return { kind: 'uninstalled', why: access ? 'token_refused' : 'no_token' };
    }
    const checks = pending.checks + 1;
    if (check.kind === 'works' && checks > this.#delays.length) {
      await this.#putPending(storeHash, undefined);
      this.#o.logger.warn(
        { platform: 'bigcommerce', shop: storeHash, since: pending.since, checks },
        'BigCommerce still accepts the store’s token long after an uninstall callback: the app is installed, ' +
          'so the token is kept and the uninstall dropped (a callback sent before a reinstall, or not BigCommerce’s)',
      );
      return { kind: 'kept' };
    }
    const next = { ...pending, checks, last: check.kind, nextCheckAt: this.#after(this.#delays[Math.min(checks, this.#delays.length) - 1]!) };
    await this.#putPending(storeHash, next);
    return { kind: 'pending', why: check.kind === 'works' ? 'token_works' : 'unknown', nextCheckAt: next.nextCheckAt };
  }

  start(): void {
    const pass = () => {
      this.#running ??= this.checkDue()
        .catch((error: unknown) => this.#o.logger.warn({ err: error }, 'could not check the pending BigCommerce uninstalls'))
        .finally(() => {
          this.#running = undefined;
        });
    };
    this.#timer = setInterval(pass, this.#o.passMs ?? PASS_MS);
    this.#timer.unref();
    // Checks that fell due while the bridge was down.
    pass();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  #after(ms: number): string {
    return new Date(this.#now() + ms).toISOString();
  }

  #state(storeHash: string): Promise<BigCommerceShopState | undefined> {
    return this.#o.store.getRecord<BigCommerceShopState>('shop', stateId(storeHash));
  }

  async #putPending(storeHash: string, pending: PendingUninstall | undefined): Promise<void> {
    const fresh: BigCommerceShopState = { platform: 'bigcommerce', shop: storeHash, uninstalledAt: null };
    const { uninstallPending: _, ...state } = (await this.#state(storeHash)) ?? fresh;
    const next: BigCommerceShopState = { ...state, ...(pending ? { uninstallPending: pending } : {}) };
    await this.#o.store.putRecord<BigCommerceShopState>('shop', stateId(storeHash), next);
  }

  async #markUninstalled(storeHash: string, at: string): Promise<void> {
    const before = await this.#state(storeHash);
    const state: ShopState = { platform: 'bigcommerce', shop: storeHash, uninstalledAt: at, installedAt: before?.installedAt ?? null };
    await this.#o.store.putRecord<ShopState>('shop', stateId(storeHash), state);
  }
}

async function withDeadline(asked: Promise<TokenCheck>, ms: number): Promise<TokenCheck> {
  // A failure after the deadline must not go unhandled; before it, it is an unknown like any other.
  const check = asked.catch((error: unknown): TokenCheck => ({ kind: 'unknown', reason: `the check failed (${error instanceof Error ? error.name : 'error'})` }));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<TokenCheck>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'unknown', reason: `BigCommerce did not answer within ${ms / 1000} s` }), ms);
  });
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}
