import type { ProgramSettings } from './program-settings.ts';
import { codePattern } from '../core/code-pattern.ts';
import type { Policy } from '../core/policy.ts';

/** The rules of an account, from its program settings (the configuration's names). */
export function policyFromConfig(config: ProgramSettings): Policy {
  return {
    earnTrigger: config.EARN_TRIGGER,
    partialRefund: config.PARTIAL_REFUND,
    minimumTotal: config.MIN_ORDER_TOTAL,
    excludedSources: config.EXCLUDED_SOURCES.map((source) => source.toLowerCase()),
    requireMobile: config.REQUIRE_MOBILE,
    countTestOrders: config.COUNT_TEST_ORDERS,
    pendingDays: config.POINTS_PENDING_DAYS,
    referral: {
      attributeKey: config.REFERRAL_ATTRIBUTE_KEY ?? null,
      discountCampaigns: Object.fromEntries(
        Object.entries(config.REFERRAL_DISCOUNT_CAMPAIGNS).map(([code, id]) => [code.toUpperCase(), id]),
      ),
      landingParam: config.REFERRAL_LANDING_PARAM ?? null,
      defaultCampaignId: config.REFERRAL_CAMPAIGN_ID ?? null,
      referrer: {
        kind: config.REFERRAL_REFERRER_KIND,
        attributeKey: config.REFERRAL_REFERRER_ATTRIBUTE_KEY ?? null,
        landingParam: config.REFERRAL_REFERRER_LANDING_PARAM ?? null,
        discountCodePattern: config.REFERRAL_REFERRER_DISCOUNT_PATTERN
          ? codePattern(config.REFERRAL_REFERRER_DISCOUNT_PATTERN)
          : null,
      },
    },
    conversion: { purchaseAmount: config.CONVERSION_PURCHASE_AMOUNT, confirm: config.CONVERSION_CONFIRM === 'on' },
    earnBands: config.LOYALTY_EARN_ACTIVITIES ?? [],
    redemption: {
      codePattern: config.REDEEM_CODE_PATTERN ? codePattern(config.REDEEM_CODE_PATTERN) : null,
      pointsPerUnit: config.REDEEM_POINTS_PER_UNIT,
    },
  };
}
