// An uninstall is confirmed with BigCommerce before the store's token is forgotten: BigCommerce revokes the
// token once the app is uninstalled, so only a refused token proves it. Until then the uninstall is pending
// in the ledger, so that it survives a restart and every bridge sees it, and is checked again with backoff
// over about a day. A reinstall can land at any moment on any bridge, so every write here is a
// compare-and-set: a reinstall's token and 'shop' record stay.
import { z } from 'zod';
import type { ShopState, RecordRole, LedgerLifecycle } from '../../src/core/store/ledger-store.ts';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { Logger } from '../../src/logger.ts';
import type { TokenCheck } from './admin-api.ts';
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

/** The store's install state, as the core keeps it for every shop, with BigCommerce's pending uninstall beside. */
const SHOP_STATE = recordType<BigCommerceShopState>(
  'shop',
  z.looseObject({
    platform: z.string(),
    shop: z.string(),
    uninstalledAt: z.string().nullable(),
    installedAt: z.string().nullable().optional(),
    uninstallPending: z
      .looseObject({
        since: z.string(),
        checks: z.number(),
        nextCheckAt: z.string(),
        last: z.enum(['works', 'unknown']),
      })
      .optional(),
  }),
  'bigcommerce:',
);

export type UninstallOutcome =
  | { kind: 'uninstalled'; why: 'token_refused' | 'no_token' }
  /** The store configured by hand: the app's token is gone, the store is served through its API account still. */
  | { kind: 'app_forgotten'; why: 'token_refused' | 'no_token' }
  | { kind: 'pending'; why: 'token_works' | 'unknown'; nextCheckAt: string }
  /** After the last check: BigCommerce still accepts the token, so the app is installed. */
  | { kind: 'kept' }
  /** The store's record changed meanwhile (a reinstall): nothing more to do. */
  | { kind: 'superseded' };

const MINUTE = 60_000;
/** After the callback's own check, how long until each next one. */
export const RECHECK_DELAYS_MS = [
  5 * MINUTE,
  15 * MINUTE,
  60 * MINUTE,
  3 * 60 * MINUTE,
  6 * 60 * MINUTE,
  12 * 60 * MINUTE,
] as const;
const PASS_MS = MINUTE;
/** The callback waits this long for BigCommerce's answer; past it, the uninstall is pending like any unknown. */
const CALLBACK_CHECK_MS = 5_000;

export interface UninstallChecksOptions {
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>;
  stores: BigCommerceStores;
  logger: Logger;
  /**
   * The bridge's end of a shop's uninstall (PlatformWiring.shopUninstalled): its storefront off, its customers'
   * reservations released. Told once the store is marked uninstalled, its token already forgotten.
   */
  shopUninstalled?: (storeHash: string) => Promise<void>;
  /** Tests shorten these. */
  recheckDelaysMs?: readonly number[];
  passMs?: number;
  now?: () => number;
}

const stateId = (storeHash: string) => `bigcommerce:${storeHash}`;

/** A change of the pending uninstall in a store's record: a new one, none, or (undefined) no write. */
type PendingChange = { set: PendingUninstall } | { drop: true } | undefined;

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
    // Read before the token: a reinstall after this rewrites installedAt.
    const seen = await this.#state(storeHash);
    const sameInstall = (current: BigCommerceShopState | undefined) =>
      (current?.installedAt ?? null) === (seen?.installedAt ?? null);
    const access = await this.#o.stores.appAccess(storeHash);
    if (!access) return this.#uninstalled(storeHash, since, sameInstall, 'no_token');
    const check = await withDeadline(access.api.tokenCheck(), CALLBACK_CHECK_MS);
    if (check.kind === 'refused') {
      if ((await this.#o.stores.forget(storeHash, access.accessToken)) === 'replaced') return { kind: 'superseded' };
      return this.#uninstalled(storeHash, since, sameInstall, 'token_refused');
    }
    const nextCheckAt = this.#after(this.#delays[0]!);
    const written = await this.#changePending(storeHash, (current) =>
      // Dated by this callback, not an earlier pending one: a payload anyone once held (a staff user's own) could
      // otherwise start a pending uninstall that dates a later genuine one back to it, and orders sent between would read as a reinstall.
      sameInstall(current) ? { set: { since, checks: 1, nextCheckAt, last: check.kind } } : undefined,
    );
    const pending = written?.uninstallPending;
    if (!pending) return { kind: 'superseded' };
    this.#o.logger.warn(
      {
        platform: 'bigcommerce',
        shop: storeHash,
        found: check.kind === 'works' ? 'token still accepted' : check.reason,
        nextCheckAt: pending.nextCheckAt,
      },
      'a BigCommerce uninstall callback that BigCommerce does not confirm yet (the store’s token still works, or no answer): the token is kept and the uninstall checked again later',
    );
    return {
      kind: 'pending',
      why: check.kind === 'works' ? 'token_works' : 'unknown',
      nextCheckAt: pending.nextCheckAt,
    };
  }

  /** Checks every pending uninstall that is due; one bridge at a time. */
  async checkDue(): Promise<void> {
    await this.#o.store.exclusive('bigcommerce-uninstall-checks', async () => {
      const now = this.#now();
      for (const { value } of await this.#o.store.listRecords(SHOP_STATE)) {
        const pending = value.uninstallPending;
        if (!pending || Date.parse(pending.nextCheckAt) > now) continue;
        try {
          await this.recheck(value.shop, pending);
        } catch (error) {
          this.#o.logger.warn(
            { err: error, platform: 'bigcommerce', shop: value.shop },
            'could not check a pending BigCommerce uninstall; the next pass tries again',
          );
        }
      }
    });
  }

  /** One later check of a pending uninstall. */
  async recheck(storeHash: string, pending: PendingUninstall): Promise<UninstallOutcome> {
    const access = await this.#o.stores.appAccess(storeHash);
    const check: TokenCheck = access ? await access.api.tokenCheck() : { kind: 'refused', status: 0 };
    // The record may have changed while BigCommerce was asked (a reinstall clears the flag): every write below is only while it has not.
    const unchanged = (current: BigCommerceShopState | undefined) => samePending(current?.uninstallPending, pending);
    if (!unchanged(await this.#state(storeHash))) return { kind: 'superseded' };
    if (check.kind === 'refused') {
      if (access && (await this.#o.stores.forget(storeHash, access.accessToken)) === 'replaced')
        return { kind: 'superseded' };
      const outcome = await this.#uninstalled(
        storeHash,
        pending.since,
        unchanged,
        access ? 'token_refused' : 'no_token',
      );
      if (outcome.kind !== 'superseded') {
        this.#o.logger.info(
          { platform: 'bigcommerce', shop: storeHash, checks: pending.checks + 1, outcome: outcome.kind },
          'BigCommerce confirmed the uninstall: the app’s token is forgotten and the store marked uninstalled ' +
            '(the store configured by hand is served through its API account still)',
        );
      }
      return outcome;
    }
    const checks = pending.checks + 1;
    if (check.kind === 'works' && checks > this.#delays.length) {
      if (!(await this.#changePending(storeHash, (current) => (unchanged(current) ? { drop: true } : undefined))))
        return { kind: 'superseded' };
      this.#o.logger.warn(
        { platform: 'bigcommerce', shop: storeHash, since: pending.since, checks },
        'BigCommerce still accepts the store’s token long after an uninstall callback: the app is installed, ' +
          'so the token is kept and the uninstall dropped (a callback sent before a reinstall, or not BigCommerce’s)',
      );
      return { kind: 'kept' };
    }
    const next = {
      ...pending,
      checks,
      last: check.kind,
      nextCheckAt: this.#after(this.#delays[Math.min(checks, this.#delays.length) - 1]!),
    };
    if (!(await this.#changePending(storeHash, (current) => (unchanged(current) ? { set: next } : undefined))))
      return { kind: 'superseded' };
    return { kind: 'pending', why: check.kind === 'works' ? 'token_works' : 'unknown', nextCheckAt: next.nextCheckAt };
  }

  start(): void {
    const pass = () => {
      this.#running ??= this.checkDue()
        .catch((error: unknown) =>
          this.#o.logger.warn({ err: error }, 'could not check the pending BigCommerce uninstalls'),
        )
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
    return this.#o.store.getRecord(SHOP_STATE, stateId(storeHash));
  }

  /**
   * Sets or drops the pending uninstall in the store's record, as `decide`
   * says from the record as it is then (undefined: no write). Resolves to the
   * record written, or undefined when nothing was.
   */
  async #changePending(
    storeHash: string,
    decide: (current: BigCommerceShopState | undefined) => PendingChange,
  ): Promise<BigCommerceShopState | undefined> {
    const { changed, value } = await this.#o.store.changeRecord(SHOP_STATE, stateId(storeHash), (current) => {
      const decided = decide(current);
      if (!decided) return undefined;
      const { uninstallPending: _, ...state } = current ?? {
        platform: 'bigcommerce',
        shop: storeHash,
        uninstalledAt: null,
      };
      return { put: { ...state, ...('set' in decided ? { uninstallPending: decided.set } : {}) } };
    });
    return changed ? value : undefined;
  }

  /**
   * The app's token is gone: the store is marked uninstalled from `at`, if
   * its record is still as `still` wants it (else superseded). The store
   * configured by hand only loses its pending uninstall.
   */
  async #uninstalled(
    storeHash: string,
    at: string,
    still: (current: BigCommerceShopState | undefined) => boolean,
    why: 'token_refused' | 'no_token',
  ): Promise<UninstallOutcome> {
    if (storeHash === this.#o.stores.environmentShop) {
      const state = await this.#state(storeHash);
      if (
        state?.uninstallPending &&
        !(await this.#changePending(storeHash, (current) => (still(current) ? { drop: true } : undefined)))
      )
        return { kind: 'superseded' };
      return { kind: 'app_forgotten', why };
    }
    const { changed } = await this.#o.store.changeRecord(SHOP_STATE, stateId(storeHash), (current) =>
      still(current)
        ? {
            put: {
              platform: 'bigcommerce',
              shop: storeHash,
              uninstalledAt: at,
              installedAt: current?.installedAt ?? null,
            },
          }
        : undefined,
    );
    if (!changed) return { kind: 'superseded' };
    await this.#o
      .shopUninstalled?.(storeHash)
      .catch((error: unknown) =>
        this.#o.logger.warn(
          { err: error, platform: 'bigcommerce', shop: storeHash },
          'the store was uninstalled, but its storefront could not be turned off nor its reservations released; its codes end by their own date',
        ),
      );
    return { kind: 'uninstalled', why };
  }
}

/**
 * Whether a pending uninstall is still the one a check started from, field by
 * field: a new uninstall callback keeps `since` but starts the checks again,
 * so `since` alone would let an older check drop or overwrite its record.
 */
const samePending = (current: PendingUninstall | undefined, expected: PendingUninstall): boolean =>
  current !== undefined &&
  current.since === expected.since &&
  current.checks === expected.checks &&
  current.nextCheckAt === expected.nextCheckAt &&
  current.last === expected.last;

async function withDeadline(asked: Promise<TokenCheck>, ms: number): Promise<TokenCheck> {
  // A failure after the deadline must not go unhandled; before it, it is an unknown like any other.
  const check = asked.catch((error: unknown): TokenCheck => ({
    kind: 'unknown',
    reason: `the check failed (${error instanceof Error ? error.name : 'error'})`,
  }));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<TokenCheck>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: 'unknown', reason: `BigCommerce did not answer within ${ms / 1000} s` }),
      ms,
    );
  });
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}
