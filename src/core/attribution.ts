// Which orders were referred, and which were paid partly with points. Both
// read only the neutral event fields and the merchant's policy.
import { BRIDGE_CODE } from './storefront/reservations.ts';
import type { ReferrerKind } from '../loyalty/protocol.ts';
import { pointsFor } from './decimal.ts';
import type { OrderSnapshot } from './order-record.ts';
import type { Policy } from './policy.ts';

/** A discount code longer than the platforms allow (255 at most) is none of ours: a pattern never runs on one. */
const MAX_CODE_LENGTH = 255;
/**
 * The discount codes of an order a pattern reads: the first 10. A store may
 * send any number (a platform may set no limit on coupon lines), and each match
 * costs up to a few milliseconds on a large pattern; no checkout takes so many.
 */
const MAX_CODES_READ = 10;
const codesRead = (snapshot: OrderSnapshot) => snapshot.discountCodes.slice(0, MAX_CODES_READ);

type Via = 'platform' | 'attribute' | 'discount_code' | 'landing_site' | 'default';

export interface Referrer {
  kind: ReferrerKind;
  value: string;
  /** Where it was read from, for the merchant. */
  via: Exclude<Via, 'platform' | 'default'>;
}

/** A referral the service can use: a campaign, and whom to reward. */
export interface Referral {
  campaignId: number;
  /** Where the campaign came from, for the merchant. */
  via: Via;
  referrer: Referrer;
}

const campaignId = (value: string | null | undefined): number | undefined => {
  if (value === null || value === undefined || !/^\s*\d{1,9}\s*$/.test(value)) return undefined;
  const id = Number(value);
  return id > 0 ? id : undefined;
};

/** The order's campaign, from the platform or the sources the merchant configured. */
export function findCampaign(snapshot: OrderSnapshot, policy: Policy): { campaignId: number; via: Via } | undefined {
  if (snapshot.referral) return { campaignId: snapshot.referral.campaignId, via: 'platform' };
  const { attributeKey, discountCampaigns, landingParam } = policy.referral;
  if (attributeKey) {
    const fromAttribute = campaignId(snapshot.attributes[attributeKey]);
    if (fromAttribute !== undefined) return { campaignId: fromAttribute, via: 'attribute' };
  }
  for (const { code } of snapshot.discountCodes) {
    const mapped = discountCampaigns[code.toUpperCase()];
    if (mapped !== undefined) return { campaignId: mapped, via: 'discount_code' };
  }
  if (landingParam && snapshot.landingSite) {
    const fromLanding = campaignId(landingQuery(snapshot.landingSite).get(landingParam));
    if (fromLanding !== undefined) return { campaignId: fromLanding, via: 'landing_site' };
  }
  return undefined;
}

/**
 * A referrer value as the service takes it for its kind, or undefined when
 * it cannot be one (a code with spaces, an e-mail without @): sending it
 * would reward nobody, or somebody else.
 */
export function referrerValue(kind: ReferrerKind, raw: string | null | undefined): string | undefined {
  const value = raw?.trim() ?? '';
  switch (kind) {
    case 'email':
      // The length first: the expression is quadratic on a long run of dots, and the value is the customer's.
      return value.length <= 320 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? value.toLowerCase() : undefined;
    case 'mobile': {
      const digits = value.replace(/[\s().-]/g, '');
      return /^\+?\d{7,15}$/.test(digits) ? digits : undefined;
    }
    default:
      return /^[^\s]{1,100}$/.test(value) ? value : undefined;
  }
}

/** Whom to reward, from a note or cart attribute, a referrer's discount code, or the landing page. */
export function findReferrer(snapshot: OrderSnapshot, policy: Policy): Referrer | undefined {
  const { kind, attributeKey, landingParam, discountCodePattern } = policy.referral.referrer;
  if (attributeKey) {
    const value = referrerValue(kind, snapshot.attributes[attributeKey]);
    if (value !== undefined) return { kind, value, via: 'attribute' };
  }
  if (discountCodePattern) {
    for (const { code } of codesRead(snapshot)) {
      const group = code.length <= MAX_CODE_LENGTH ? discountCodePattern.firstGroup(code) : null;
      const value = group === null ? undefined : referrerValue(kind, group ?? code);
      if (value !== undefined) return { kind, value, via: 'discount_code' };
    }
  }
  if (landingParam && snapshot.landingSite) {
    const value = referrerValue(kind, landingQuery(snapshot.landingSite).get(landingParam));
    if (value !== undefined) return { kind, value, via: 'landing_site' };
  }
  return undefined;
}

export type Attribution =
  | { kind: 'referral'; referral: Referral }
  /** A campaign, but nobody to reward: a conversion would be of no use to the service. */
  | { kind: 'no_referrer'; campaignId: number }
  | { kind: 'none' };

export function attribute(snapshot: OrderSnapshot, policy: Policy): Attribution {
  const referrer = findReferrer(snapshot, policy);
  const campaign =
    findCampaign(snapshot, policy) ??
    (referrer && policy.referral.defaultCampaignId !== null
      ? { campaignId: policy.referral.defaultCampaignId, via: 'default' as const }
      : undefined);
  if (!campaign) return { kind: 'none' };
  if (!referrer) return { kind: 'no_referrer', campaignId: campaign.campaignId };
  return { kind: 'referral', referral: { ...campaign, referrer } };
}

/** The referral a conversion can be sent for, if the order has one. */
export function findReferral(snapshot: OrderSnapshot, policy: Policy): Referral | undefined {
  const attribution = attribute(snapshot, policy);
  return attribution.kind === 'referral' ? attribution.referral : undefined;
}

function landingQuery(landingSite: string): URLSearchParams {
  const question = landingSite.indexOf('?');
  if (question < 0) return new URLSearchParams();
  return new URLSearchParams(landingSite.slice(question + 1).split('#')[0]);
}

/** Points to redeem for the loyalty discount codes on an order; 0 when there are none. */
export function pointsToRedeem(snapshot: OrderSnapshot, policy: Policy): number {
  const { codePattern, pointsPerUnit } = policy.redemption;
  if (!codePattern) return 0;
  // The bridge's own reward codes are redeemed through their reservations (upstream.redeemCodes), never here.
  return codesRead(snapshot)
    .filter(({ code }) => code.length <= MAX_CODE_LENGTH && !BRIDGE_CODE.test(code) && codePattern.test(code))
    .reduce((total, { amount }) => total + pointsFor(amount, pointsPerUnit), 0);
}
