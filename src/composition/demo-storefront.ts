// The demo shop's storefront on a first run (issue 68): what the platform's side would be for the demo's shop,
// played by the demo. The customer is read by the platform's own check of what its proxy or page signs
// (PlatformDemo.storefront.asker, with this run's secret); their contact is the demo customer's; reward codes are
// kept in memory, as the platform's store would keep them, and used once at the demo store page's checkout. The
// bridge's side (the storefront routes, reservations, the redeem at the order) is the real one. At start the shop's
// storefront is turned on with a reward a demo customer can afford, unless its merchant set rewards already.
import type { DemoStorefront, DiscountCodeRequest, PlatformParts, StoreCodes } from '../core/platform-module.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import { saveRewards, shopRewards, type Reward } from '../core/storefront/rewards.ts';
import { setStorefront } from '../core/storefront/storefront-switch.ts';
import { DEMO_BY } from './demo-accounts.ts';
import type { RewardBenefit } from '../core/reward-benefit.ts';

/**
 * What the demo's checkout takes off a cart of `price` for a code's benefit, as decimal text: the amount (at most the
 * price), the share of it rounded to the cent, or nothing for free shipping (the demo's cart ships free anyway).
 */
export function moneyOff(benefit: RewardBenefit, price: string): string {
  const cents = Math.round(Number(price) * 100);
  const off = (taken: number) => (Math.min(cents, taken) / 100).toFixed(2);
  switch (benefit.kind) {
    case 'amount_off':
      return off(Math.round(Number(benefit.amount) * 100));
    case 'percent_off':
      return off(Math.round((cents * benefit.percent) / 100));
    case 'free_shipping':
      return '0.00';
  }
}

/** The demo shop's first reward: the points the demo customer's first order earns. */
export const DEMO_REWARD: Omit<Reward, 'id'> = {
  points: 100,
  benefit: { kind: 'amount_off', amount: '5.00' },
  minimumOrder: null,
  expiresInDays: 30,
  combines: false,
  on: true,
};

interface DemoCode {
  request: DiscountCodeRequest;
  platformId: string;
  uses: number;
  removed: boolean;
}

/** Why a code does not pay at the demo checkout, as a store's checkout says it. */
export const CODE_REFUSED = 'This code cannot be used: check it, or redeem a reward for a new one.';

/** The codes the demo's store holds: made by the bridge, used at the demo checkout. */
export class DemoCodes {
  readonly #codes = new Map<string, DemoCode>();
  #made = 0;

  readonly parts: StoreCodes = {
    make: async (request) => {
      const platformId = `demo-code-${++this.#made}`;
      this.#codes.set(request.code.toUpperCase(), { request, platformId, uses: 0, removed: false });
      return { kind: 'made', platformId };
    },
    find: async (_shop, code) => this.#codes.get(code.toUpperCase())?.platformId,
    uses: async (_shop, platformId) => {
      const code = this.#byId(platformId);
      return code && !code.removed ? code.uses : undefined;
    },
    remove: async (_shop, platformId) => {
      const code = this.#byId(platformId);
      if (code) code.removed = true;
    },
    // The checkout takes it from the customer it was made for alone.
    forOneCustomer: true,
    // Counted at the demo's checkout, with the order.
    usesCountedLate: false,
    // The demo's checkout takes every kind.
    notMade: {},
    setUpFirst: {},
    whyKindFails: async () => undefined,
    readiness: async () => ({ ready: true }),
  };

  /** The code used at checkout by `customerId` on a cart of `price`: its text, benefit and money off, or why not. */
  use(
    text: string,
    customerId: string,
    price: string,
    now = new Date(),
  ): { code: string; amount: string; benefit: RewardBenefit } | { refused: string } {
    const code = this.#codes.get(text.trim().toUpperCase());
    if (
      !code ||
      code.removed ||
      code.uses > 0 ||
      code.request.customerId !== customerId ||
      Date.parse(code.request.expiresAt) < now.getTime()
    )
      return { refused: CODE_REFUSED };
    code.uses++;
    const { benefit } = code.request;
    return { code: code.request.code, amount: moneyOff(benefit, price), benefit };
  }

  #byId(platformId: string): DemoCode | undefined {
    return [...this.#codes.values()].find((code) => code.platformId === platformId);
  }
}

/** The demo shop's storefront and codes, while the demo plays: nothing opens once it stopped. */
export function demoStorefrontParts(parts: {
  shop: string;
  storefront: DemoStorefront;
  secret: string;
  codes: DemoCodes;
  playing(): boolean;
}): Required<Pick<PlatformParts, 'storefront' | 'codes'>> {
  const { shop, storefront, secret, codes, playing } = parts;
  return { storefront: demoIdentity(shop, storefront, secret, playing), codes: codes.parts };
}

function demoIdentity(
  shop: string,
  storefront: DemoStorefront,
  secret: string,
  playing: () => boolean,
): NonNullable<PlatformParts['storefront']> {
  const { customer } = storefront;
  return {
    // Behind the demo's own page, same-origin, with one way in.
    cors: null,
    entrances: [],
    served: async (asked) => asked === shop && playing(),
    customer: async (request) => (playing() ? storefront.asker(request, secret) : { kind: 'refused' }),
    async contact(asked, customerId) {
      if (asked !== shop || customerId !== customer.id) return undefined;
      return { email: customer.of.email, ...(customer.of.phone ? { phone: customer.of.phone } : {}) };
    },
    readiness: async () => ({ ready: true }),
  };
}

/** The demo's rewards: one of each kind, each at the points the demo customer's first order earns. */
const DEMO_REWARDS: Reward[] = [
  { id: 'demo-reward', ...DEMO_REWARD },
  { id: 'demo-percent', ...DEMO_REWARD, benefit: { kind: 'percent_off', percent: 10 } },
  { id: 'demo-shipping', ...DEMO_REWARD, benefit: { kind: 'free_shipping' } },
];

/** The shop's storefront on with the demo's rewards, unless its merchant set rewards already (an earlier run). */
export async function setUpDemoStorefront(
  store: Pick<LedgerStore, 'getRecord' | 'putRecord' | 'deleteRecord'>,
  platform: string,
  shop: string,
): Promise<void> {
  if ((await shopRewards(store, platform, shop)).length > 0) return;
  await saveRewards(store, platform, shop, DEMO_REWARDS, DEMO_BY);
  await setStorefront(store, { platform, shop, on: true, by: DEMO_BY }, async () => true);
}
