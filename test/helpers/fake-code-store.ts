// A store's discount codes as StorefrontParts.codes sees them, in memory, for model tests of reward codes
// (reserve at issue, redeem at use): what was made, for whom, until when, how often used, and whether removed;
// and a make that can be told to fail once, before or after the code is made (a lost answer).
import type { DiscountCodeRequest, MadeCode, StorefrontParts } from '../../src/core/platform-module.ts';

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
  /** The next make is told to `asked`, then waits for `until` before it makes the code (a slow store). */
  holdMake: { asked: () => void; until: Promise<void> } | undefined;

  readonly parts: NonNullable<StorefrontParts['codes']> = {
    make: async (request: DiscountCodeRequest): Promise<MadeCode> => {
      const fail = this.failMake;
      this.failMake = undefined;
      const hold = this.holdMake;
      this.holdMake = undefined;
      if (hold) {
        hold.asked();
        await hold.until;
      }
      if (fail === 'before') throw new Error('injected: the store could not be reached to make the code');
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
      const found = this.byId.get(platformId);
      if (found) found.removed = true;
    },
  };

  /** The code a checkout of this customer at `now` may apply: made, not removed, unused, not expired. */
  usable(code: string, customerId: string, now: number): FakeCode | undefined {
    const id = [...this.byId.values()].find((each) => each.code === code)?.platformId;
    const found = id === undefined ? undefined : this.byId.get(id);
    if (!found || found.removed || found.uses > 0 || found.expiresAt <= now || found.customerId !== customerId)
      return undefined;
    return found;
  }

  /** Codes a checkout could still apply (not removed, unused), expired or not. */
  live(): FakeCode[] {
    return [...this.byId.values()].filter((each) => !each.removed && each.uses === 0);
  }
}
