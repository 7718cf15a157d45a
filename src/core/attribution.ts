// Which orders were referred, and which were paid partly with points. Both
// read only the neutral event fields and the merchant's policy.
import { pointsFor } from './decimal.ts';
import type { OrderSnapshot } from './order-record.ts';
import type { Policy } from './policy.ts';

export interface Referral {
  campaignId: number;
  /** Where the attribution came from, for the merchant. */
  via: 'platform' | 'attribute' | 'discount_code' | 'landing_site';
}

const campaignId = (value: string | null | undefined): number | undefined => {
  if (value === null || value === undefined || !/^\s*\d{1,9}\s*$/.test(value)) return undefined;
  const id = Number(value);
  return id > 0 ? id : undefined;
};

export function findReferral(snapshot: OrderSnapshot, policy: Policy): Referral | undefined {
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

function landingQuery(landingSite: string): URLSearchParams {
  const question = landingSite.indexOf('?');
  if (question < 0) return new URLSearchParams();
  return new URLSearchParams(landingSite.slice(question + 1).split('#')[0]);
}

/** Points to redeem for the loyalty discount codes on an order; 0 when there are none. */
export function pointsToRedeem(snapshot: OrderSnapshot, policy: Policy): number {
  const { codePattern, pointsPerUnit } = policy.redemption;
  if (!codePattern) return 0;
  return snapshot.discountCodes
    .filter(({ code }) => codePattern.test(code))
    .reduce((total, { amount }) => total + pointsFor(amount, pointsPerUnit), 0);
}
