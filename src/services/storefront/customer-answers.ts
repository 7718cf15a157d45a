// The storefront's answers to a customer the platform vouched for (signed in, or a guest): their points, and their
// press of Redeem once the pace let it through (../storefront.ts). Their contact comes only from what the platform
// signed, or from the platform's own record read on the bridge's side; nothing of it is ever answered, logged or
// put in an error. Each answer is what the store's widgets read, as it is.
import type { AccountRuntime } from '../../core/accounts.ts';
import type { PlatformParts } from '../../core/platform-module.ts';
import type { StorefrontAsker } from '../../core/platform-shapes.ts';
import { amountOffField } from '../../core/reward-benefit.ts';
import { serviceCustomer, type ServiceCustomer } from '../../core/storefront/customer-points.ts';
import type { PointsAnswer } from '../../core/storefront/points-answers.ts';
import type { RedeemAnswer } from '../../core/storefront/redeem-answer.ts';
import type { RewardCodes } from '../../core/storefront/reward-codes.ts';
import { rewardWords, shopRewards, type Reward } from '../../core/storefront/rewards.ts';
import type { StorefrontReader } from '../../core/storefront/storefront-reader.ts';
import { storefrontOn } from '../../core/storefront/storefront-switch.ts';
import { waysToEarn, type WayToEarn } from '../../core/storefront/ways-to-earn.ts';
import type { RecordRole } from '../../core/store/ledger-store.ts';
import { CUSTOMER_WORDS, REDEEM_WORDS } from './words.ts';

/** What the storefront answers: its status, what the widget reads, and a header where it says when to try again. */
export interface StorefrontAnswer {
  status: 200 | 401 | 404 | 409 | 429 | 503;
  json: Readonly<Record<string, unknown>>;
  headers?: Readonly<Record<string, string>>;
}

export interface CustomerAnswerParts {
  /** A platform's parts: its storefront reads a customer's record; its `codes` make rewards (only then offered). */
  partsOf(platform: string): Pick<PlatformParts, 'storefront' | 'codes'> | undefined;
  store: Pick<RecordRole, 'getRecord'>;
  accounts: {
    forShop(platform: string, shop: string): Promise<string | undefined>;
    runtime(id: string): Promise<AccountRuntime | undefined>;
  };
  reader: Pick<StorefrontReader, 'contact' | 'needsEmail' | 'points'>;
  rewardCodes: Pick<RewardCodes, 'redeem' | 'openCodes'>;
}

type Signed = Extract<StorefrontAsker, { kind: 'customer' }>;
type Asked = 'points' | 'redeem';

/** The shop as its customers see it: the account their points are on, how to earn, the rewards offered. */
interface ShopView {
  account: AccountRuntime;
  ways: WayToEarn[];
  offered: Reward[];
  rewards: Array<Record<string, unknown>>;
}

const NOT_FOUND: StorefrontAnswer = { status: 404, json: { error: 'not found' } };

/** A customer's points, or a guest's view of the shop (its rewards, and that they may sign in). */
export async function pointsAnswer(
  parts: CustomerAnswerParts,
  platform: string,
  asker: Exclude<StorefrontAsker, { kind: 'refused' }>,
): Promise<StorefrontAnswer> {
  const view = await shopView(parts, platform, asker.shop);
  if (!view) return NOT_FOUND;
  if (asker.kind === 'guest')
    return { status: 200, json: { customer: 'guest', waysToEarn: view.ways, rewards: view.rewards, signIn: true } };
  const known = await knownCustomer(parts, platform, asker, view, 'points');
  if (!known.ok) return known.answer;
  const { account } = view;
  const read = await parts.reader.points(account, known.customer, { platform, shop: asker.shop });
  if (!read.ok && 'needsEmail' in read) return unavailable(view, 'points', CUSTOMER_WORDS.needsEmail);
  if (!read.ok) return unavailable(view, 'points', CUSTOMER_WORDS.busy, { retryAfterSeconds: read.retryAfterSeconds });
  const { shop, customerId } = asker;
  const codes = await parts.rewardCodes.openCodes(account.id, known.customer, platform, shop, customerId);
  return {
    status: 200,
    json: {
      customer: 'signed-in',
      balance: balanceOf(read),
      history: read.points.history,
      waysToEarn: view.ways,
      rewards: view.rewards,
      codes,
    },
  };
}

/** A signed-in customer's Redeem of `rewardId`: a code, or why not (nothing taken then). */
export async function redeemAnswer(
  parts: CustomerAnswerParts,
  platform: string,
  asker: Signed,
  rewardId: string | undefined,
): Promise<StorefrontAnswer> {
  const view = await shopView(parts, platform, asker.shop);
  if (!view) return NOT_FOUND;
  const known = await knownCustomer(parts, platform, asker, view, 'redeem');
  if (!known.ok) return known.answer;
  const { customer } = known;
  // Known by a phone alone: nothing spent (a page's read asks the reader, which answers the same before any read).
  if (parts.reader.needsEmail(customer)) return unavailable(view, 'redeem', CUSTOMER_WORDS.needsEmail);
  const reward = view.offered.find((each) => each.id === rewardId);
  if (!reward) return { status: 409, json: { redeemed: false, error: REDEEM_WORDS.noReward } };
  const { shop, customerId } = asker;
  return madeAnswer(
    await parts.rewardCodes.redeem({ platform, shop, customerId, account: view.account, customer, reward }),
  );
}

async function shopView(
  { partsOf, store, accounts }: CustomerAnswerParts,
  platform: string,
  shop: string,
): Promise<ShopView | undefined> {
  if (!(await storefrontOn(store, platform, shop))) return undefined;
  const accountId = await accounts.forShop(platform, shop);
  const account = accountId === undefined ? undefined : await accounts.runtime(accountId);
  if (!account) return undefined;
  const ways = waysToEarn(account);
  const codes = partsOf(platform)?.codes;
  // A kind the platform no longer makes is not offered, though the merchant's reward of it stays until they change it.
  const offered = codes
    ? (await shopRewards(store, platform, shop)).filter((r) => r.on && codes.notMade[r.benefit.kind] === undefined)
    : [];
  const rewards = offered.map((reward) => ({
    id: reward.id,
    points: reward.points,
    benefit: reward.benefit,
    ...amountOffField(reward.benefit),
    minimumOrder: reward.minimumOrder,
    expiresInDays: reward.expiresInDays,
    words: rewardWords(reward),
  }));
  return { account, ways, offered, rewards };
}

/** Who the signed-in customer is at the loyalty service, or what they are shown in place of their balance. */
async function knownCustomer(
  { partsOf, reader }: CustomerAnswerParts,
  platform: string,
  asker: Signed,
  view: ShopView,
  asked: Asked,
): Promise<{ ok: true; customer: ServiceCustomer } | { ok: false; answer: StorefrontAnswer }> {
  const no = (words: string, extra?: Record<string, unknown>) => ({
    ok: false as const,
    answer: unavailable(view, asked, words, extra),
  });
  // An address nobody proved is no one's: they are offered the proof, and shown nothing of anyone's points.
  if (asker.contactUnproven)
    return no(CUSTOMER_WORDS.unproven, { proveContact: { action: CUSTOMER_WORDS.proveAction } });
  // What the platform signed with who asks is who they are; otherwise their record is read on the bridge's side.
  const { shop, customerId } = asker;
  const contact =
    asker.contact ??
    (await reader.contact(platform, shop, customerId, async () =>
      partsOf(platform)?.storefront?.contact(shop, customerId),
    ));
  if (contact === 'not-allowed') return no(CUSTOMER_WORDS.notAllowed);
  const customer = contact && serviceCustomer(contact);
  if (!customer) return no(CUSTOMER_WORDS.noContact);
  return { ok: true, customer };
}

/**
 * What the page shows in place of the balance; a Redeem refused so says so as the others do (redeemed false, the
 * words in error).
 */
function unavailable(
  view: ShopView,
  asked: Asked,
  words: string,
  extra: Record<string, unknown> = {},
): StorefrontAnswer {
  return {
    status: asked === 'redeem' ? 409 : 200,
    json: {
      customer: 'signed-in',
      unavailable: words,
      ...extra,
      ...(asked === 'redeem' ? { redeemed: false, error: words } : {}),
      waysToEarn: view.ways,
      rewards: view.rewards,
    },
  };
}

function balanceOf(read: Extract<PointsAnswer, { ok: true }>) {
  const { balance } = read.points;
  return {
    // Never below 0 for the customer: for a moment after a code's redeem goes through, its points may be counted
    // both as spent at the service and as held (heldPoints), and "-800 points" would alarm them for nothing.
    available: Math.max(0, balance.available),
    pending: balance.pending,
    pendingUntil: balance.pendingUntil,
    asOf: read.asOf,
    source: balance.source,
    missingElsewhere: balance.missingElsewhere,
    stale: read.stale,
  };
}

/** A Redeem's answer in the customer's words: the code made, or why none was (MAX_OPEN_CODES: too-many). */
function madeAnswer(made: RedeemAnswer): StorefrontAnswer {
  switch (made.kind) {
    case 'issued':
      return {
        status: 200,
        json: {
          redeemed: true,
          code: made.code,
          benefit: made.benefit,
          ...amountOffField(made.benefit),
          expiresAt: made.expiresAt,
          available: made.available,
        },
      };
    case 'short':
      return { status: 409, json: { redeemed: false, error: REDEEM_WORDS.short, available: made.available } };
    case 'busy':
      return {
        status: 503,
        json: { redeemed: false, error: REDEEM_WORDS.busy, retryAfterSeconds: made.retryAfterSeconds },
      };
    case 'not-allowed':
      return { status: 409, json: { redeemed: false, error: REDEEM_WORDS.notAllowed } };
    case 'failed':
      return { status: 503, json: { redeemed: false, error: REDEEM_WORDS.failed } };
    case 'too-many':
      return { status: 409, json: { redeemed: false, error: REDEEM_WORDS.tooMany } };
    case 'needs-email':
      return { status: 409, json: { redeemed: false, error: REDEEM_WORDS.needsEmail } };
  }
}
