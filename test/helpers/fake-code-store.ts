// A store's discount codes as StoreCodes sees them, in memory, for model tests of reward codes
// (reserve at issue, redeem at use): what was made, for whom, until when, how often used, and whether removed;
// and a make that can be told to fail once, before or after the code is made (a lost answer).
import type { DiscountCodeRequest, MadeCode, StoreCodes } from '../../src/core/platform-module.ts';

export interface FakeCode {
  platformId: string;
  code: string;
  shop: string;
  customerId: string;
  points?: number;
  expiresAt: number;
  uses: number;
  removed: boolean;
}

export class FakeCodeStore {
  readonly byId = new Map<string, FakeCode>();
  readonly #byText = new Map<string, string>();
  #next = 0;
  /** The next make throws: before anything is made, or after the code is made (its answer lost). */
  failMake: 'before' | 'after' | undefined;
  /** The next remove throws: the store could not be reached. */
  failRemove = false;
  /** While set, removes throw as a store does that no longer lets the app in (a key revoked, an uninstall). */
  accessGone = false;
  /** The next make is told to `asked`, then waits for `until` before it makes the code (a slow store). */
  holdMake: { asked: () => void; until: Promise<void> } | undefined;
  /**
   * The next make throws at once (the bridge's call timed out) and the store makes the code anyway when `until`
   * resolves: Shopify finishing a mutation its caller gave up on.
   */
  makeAfterTimeout: Promise<void> | undefined;
  /**
   * Uses counted late, as Shopify's asyncUsageCount is: a checkout's use shows in `uses` only once
   * countLateUses() runs. The parts say so (usesCountedLate).
   */
  readonly #lateUses = new Map<string, number>();

  constructor({ countsLate = false }: { countsLate?: boolean } = {}) {
    this.parts.usesCountedLate = countsLate;
  }

  /** A checkout applies the code: counted now, or (countsLate) once countLateUses() runs. */
  use(found: FakeCode): void {
    if (this.parts.usesCountedLate)
      this.#lateUses.set(found.platformId, (this.#lateUses.get(found.platformId) ?? 0) + 1);
    else found.uses += 1;
  }

  /** The store's late count catches up. */
  countLateUses(): void {
    for (const [id, uses] of this.#lateUses) this.byId.get(id)!.uses += uses;
    this.#lateUses.clear();
  }

  readonly parts: StoreCodes = {
    make: async (request: DiscountCodeRequest): Promise<MadeCode> => {
      const late = this.makeAfterTimeout;
      this.makeAfterTimeout = undefined;
      if (late) {
        void late.then(() => this.#made(request));
        throw new Error('injected: the store did not answer in time (it makes the code later)');
      }
      const fail = this.failMake;
      this.failMake = undefined;
      const hold = this.holdMake;
      this.holdMake = undefined;
      if (hold) {
        hold.asked();
        await hold.until;
      }
      if (fail === 'before') throw new Error('injected: the store could not be reached to make the code');
      const platformId = this.#made(request);
      if (fail === 'after') throw new Error('injected: the code was made but its answer was lost');
      return { kind: 'made', platformId };
    },
    find: async (shop, code) => {
      const id = this.#byText.get(`${shop}\u0000${code.toUpperCase()}`);
      return id !== undefined && !this.byId.get(id)!.removed ? id : undefined;
    },
    uses: async (_shop, platformId) => {
      const found = this.byId.get(platformId);
      return found && !found.removed ? found.uses : undefined;
    },
    remove: async (_shop, platformId) => {
      if (this.accessGone)
        throw Object.assign(new Error('injected: the store no longer lets the app in'), { accessGone: true });
      if (this.failRemove) {
        this.failRemove = false;
        throw new Error('injected: the store could not be reached to remove the code');
      }
      const found = this.byId.get(platformId);
      if (found) found.removed = true;
    },
    forOneCustomer: false,
    usesCountedLate: false,
    notMade: {},
    setUpFirst: {},
    whyKindFails: async () => undefined,
    readiness: async () => ({ ready: true }),
  };

  #made(request: DiscountCodeRequest): string {
    const platformId = `gid://fake/DiscountCode/${++this.#next}`;
    this.byId.set(platformId, {
      platformId,
      code: request.code,
      shop: request.shop,
      customerId: request.customerId,
      expiresAt: Date.parse(request.expiresAt),
      uses: 0,
      removed: false,
    });
    this.#byText.set(`${request.shop}\u0000${request.code.toUpperCase()}`, platformId);
    return platformId;
  }

  /** The code a checkout of this customer at `now` may apply: made, not removed, unused, not expired. */
  usable(code: string, customerId: string, now: number): FakeCode | undefined {
    const id = [...this.byId.values()].find((each) => each.code === code)?.platformId;
    const found = id === undefined ? undefined : this.byId.get(id);
    const used = found && found.uses + (this.#lateUses.get(found.platformId) ?? 0) > 0;
    if (!found || found.removed || used || found.expiresAt <= now || found.customerId !== customerId) return undefined;
    return found;
  }

  /** Codes a checkout could still apply (not removed, unused), expired or not. */
  live(): FakeCode[] {
    return [...this.byId.values()].filter(
      (each) => !each.removed && each.uses + (this.#lateUses.get(each.platformId) ?? 0) === 0,
    );
  }
}
