// The storefront's routes of a platform with a `storefront` part, mounted at /<name>/storefront/…: what a
// customer sees of their points on the store's pages. Who asks comes only from what the platform signed
// (storefront.customer); their contact only from the platform's own record, on the bridge's side
// (storefront.contact). Nothing of the contact is ever answered, logged or put in an error. Each of the part's
// entrances (a customer account extension's route) answers the same, once it knows who asks. docs/storefront.md.
import type { AccountRuntime } from '../core/accounts.ts';
import { paceKey, type CustomerPace } from '../core/storefront/customer-pace.ts';
import { routeQuery } from '../core/platform-answers.ts';
import type { PlatformRoute, StorefrontAsker, Storefront, StorefrontEntrance } from '../core/platform-module.ts';
import type { RewardCodes } from '../core/storefront/reward-codes.ts';
import { rewardWords, shopRewards } from '../core/storefront/rewards.ts';
import { serviceCustomer } from '../core/storefront/customer-points.ts';
import type { StorefrontReader } from '../core/storefront/storefront-reader.ts';
import { storefrontOn } from '../core/storefront/storefront-switch.ts';
import { waysToEarn } from '../core/storefront/ways-to-earn.ts';
import type { RecordRole } from '../core/store/ledger-store.ts';
import { amountOffField } from '../core/reward-benefit.ts';

export interface StorefrontRouteParts {
  platform: string;
  storefront: Storefront;
  /** Whether the platform makes reward codes (its `codes` capability): only then are rewards offered and redeemed. */
  makesCodes: boolean;
  store: Pick<RecordRole, 'getRecord'>;
  accounts: {
    forShop(platform: string, shop: string): Promise<string | undefined>;
    runtime(id: string): Promise<AccountRuntime | undefined>;
  };
  reader: StorefrontReader;
  rewardCodes?: Pick<RewardCodes, 'redeem' | 'openCodes'>;
  pace: CustomerPace;
}

/** What a customer reads when their points cannot be shown, each in their words. */
export const CUSTOMER_WORDS = {
  notAllowed: 'Your points cannot be shown here yet: the store has to finish setting this up.',
  noContact: 'Your points cannot be shown: your account has no confirmed e-mail address or phone number.',
  unproven: 'Confirm your e-mail address to see and spend your points: we will send you a link.',
  needsEmail: 'Add your e-mail address to your account in this store to see and spend your points here.',
  proveAction: 'Send me the link',
  busy: 'Your points cannot be shown just now. Try again in a moment.',
} as const;

/** What a customer reads when a reward cannot be redeemed, each in their words. */
export const REDEEM_WORDS = {
  noReward: 'This reward is not offered any more. Reload the page to see the rewards there are.',
  short: 'You do not have enough points for this reward yet.',
  busy: 'Your reward cannot be made just now. Try again in a moment: no points were taken.',
  notAllowed: 'Rewards cannot be redeemed here yet: the store has to finish setting this up.',
  failed: 'Your reward could not be made. Try again in a moment: no points were taken.',
  needsEmail: 'Add your e-mail address to your account in this store to spend your points here: no points were taken.',
  tooMany: 'You already have unused reward codes. Use one of them before you redeem another.',
  signIn: 'Sign in to spend your points.',
  tooFast: 'Redeem was pressed many times in a few seconds. Wait a moment, then press it once: no points were taken.',
} as const;

/** What the routes below answer, a Response only at their edge (toResponse). */
type StorefrontAnswer = { status: number; json: unknown; headers?: Readonly<Record<string, string>> };

const toResponse = ({ status, json, headers }: StorefrontAnswer): Response =>
  Response.json(json, { status, ...(headers ? { headers } : {}) });

const NOT_FOUND = { status: 404, json: { error: 'not found' } } as const;

export function storefrontRoutes(parts: StorefrontRouteParts): PlatformRoute[] {
  const { storefront } = parts;
  // The proxy's route and every entrance share every step after "who asks".
  const entrances: StorefrontEntrance[] = [
    {
      path: '/points',
      cors: storefront.cors,
      customer: (request) => storefront.customer(request),
    },
    ...storefront.entrances,
  ];
  return entrances.flatMap((entrance) => {
    const points: PlatformRoute = {
      method: 'GET',
      path: `/storefront${entrance.path}`,
      ...(entrance.cors ? { cors: entrance.cors } : {}),
      handle: async (request) => toResponse(await answer(parts, entrance, request, 'points')),
    };
    if (!parts.makesCodes || !parts.rewardCodes) return [points];
    // The reward is named in the query (signed with the rest where the platform signs it): no body is read.
    const redeem: PlatformRoute = {
      method: 'POST',
      path: `/storefront${entrance.path}/redeem`,
      maxBodyBytes: 0,
      ...(entrance.cors ? { cors: entrance.cors } : {}),
      handle: async (request) => toResponse(await answer(parts, entrance, request, 'redeem')),
    };
    return [points, redeem];
  });
}

async function answer(
  parts: StorefrontRouteParts,
  entrance: StorefrontEntrance,
  request: Request,
  asked: 'points' | 'redeem',
): Promise<StorefrontAnswer> {
  const asker = await entrance.customer(request);
  // Not the platform's: nothing read, nothing recorded.
  if (asker.kind === 'refused') return { status: 401, json: { error: 'this request is not signed by the store' } };
  // A guest's press reads nothing: they are asked to sign in.
  if (asker.kind === 'guest' && asked === 'redeem')
    return { status: 401, json: { customer: 'guest', signIn: true, redeemed: false, error: REDEEM_WORDS.signIn } };
  if (asker.kind === 'guest' || asked === 'points') return answerAsker(parts, asker, request, asked);
  // A signed-in customer pressing Redeem past their refusals' pace: refused after a hold, before anything is read.
  const key = paceKey(parts.platform, asker.shop, asker.customerId);
  const paced = await parts.pace.press(key);
  if (!paced.ok)
    return {
      status: 429,
      headers: { 'retry-after': String(paced.retryAfterSeconds) },
      json: { redeemed: false, error: REDEEM_WORDS.tooFast, retryAfterSeconds: paced.retryAfterSeconds },
    };
  const answered = await answerAsker(parts, asker, request, asked);
  await parts.pace.answered(key, 'status' in answered && answered.status === 200);
  return answered;
}

/** The answer to a customer the platform vouched for (signed in or a guest). */
async function answerAsker(
  { platform, storefront, makesCodes, store, accounts, reader, rewardCodes }: StorefrontRouteParts,
  asker: Exclude<StorefrontAsker, { kind: 'refused' }>,
  request: Request,
  asked: 'points' | 'redeem',
): Promise<StorefrontAnswer> {
  const { shop } = asker;
  if (!(await storefrontOn(store, platform, shop))) return NOT_FOUND;
  const accountId = await accounts.forShop(platform, shop);
  const account = accountId === undefined ? undefined : await accounts.runtime(accountId);
  if (!account) return NOT_FOUND;
  const ways = waysToEarn(account);
  const offered = makesCodes && rewardCodes ? (await shopRewards(store, platform, shop)).filter((r) => r.on) : [];
  const rewards = offered.map((reward) => ({
    id: reward.id,
    points: reward.points,
    benefit: reward.benefit,
    ...amountOffField(reward.benefit),
    minimumOrder: reward.minimumOrder,
    expiresInDays: reward.expiresInDays,
    words: rewardWords(reward),
  }));
  if (asker.kind === 'guest')
    return {
      status: 200,
      json: {
        customer: 'guest',
        waysToEarn: ways,
        rewards,
        signIn: true,
      },
    };
  // Every refusal of a redeem says so as the others do (redeemed false, the words in error), beside what the page
  // shows in place of the balance.
  const unavailable = (words: string, extra: Record<string, unknown> = {}) => ({
    status: asked === 'redeem' ? 409 : 200,
    json: {
      customer: 'signed-in',
      unavailable: words,
      ...extra,
      ...(asked === 'redeem' ? { redeemed: false, error: words } : {}),
      waysToEarn: ways,
      rewards,
    },
  });
  // An address nobody proved is no one's: they are offered the proof, and shown nothing of anyone's points.
  if (asker.contactUnproven)
    return unavailable(CUSTOMER_WORDS.unproven, { proveContact: { action: CUSTOMER_WORDS.proveAction } });
  // What the platform signed with who asks is who they are; otherwise their record is read on the bridge's side.
  const contact =
    asker.contact ??
    (await reader.contact(platform, shop, asker.customerId, () => storefront.contact(shop, asker.customerId)));
  if (contact === 'not-allowed') return unavailable(CUSTOMER_WORDS.notAllowed);
  const customer = contact && serviceCustomer(contact);
  if (!customer) return unavailable(CUSTOMER_WORDS.noContact);
  if (asked === 'redeem' && rewardCodes) {
    // Known by a phone alone: nothing spent (a page's read asks the reader, which answers the same before any read).
    if (reader.needsEmail(customer)) return unavailable(CUSTOMER_WORDS.needsEmail);
    const reward = offered.find((each) => each.id === routeQuery(request).reward);
    if (!reward) return { status: 409, json: { redeemed: false, error: REDEEM_WORDS.noReward } };
    const made = await rewardCodes.redeem({ platform, shop, customerId: asker.customerId, account, customer, reward });
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
  const read = await reader.points(account, customer, { platform, shop });
  if (!read.ok && 'needsEmail' in read) return unavailable(CUSTOMER_WORDS.needsEmail);
  if (!read.ok) return unavailable(CUSTOMER_WORDS.busy, { retryAfterSeconds: read.retryAfterSeconds });
  const { balance, history } = read.points;
  const codes = rewardCodes ? await rewardCodes.openCodes(account.id, customer, platform, shop, asker.customerId) : [];
  return {
    status: 200,
    json: {
      customer: 'signed-in',
      balance: {
        // Never below 0 for the customer: for a moment after a code's redeem goes through, its points may be counted
        // both as spent at the service and as held (heldPoints), and "-800 points" would alarm them for nothing.
        available: Math.max(0, balance.available),
        pending: balance.pending,
        pendingUntil: balance.pendingUntil,
        asOf: read.asOf,
        source: balance.source,
        missingElsewhere: balance.missingElsewhere,
        stale: read.stale,
      },
      history,
      waysToEarn: ways,
      rewards,
      codes,
    },
  };
}
