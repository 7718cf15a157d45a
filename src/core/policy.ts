// The merchant's rules for points, referrals and redemptions. All of it comes
// from configuration; the lifecycle reads nothing else.
import type { ReferrerKind } from '../loyalty/protocol.ts';
import { codePattern, type CodePattern } from './code-pattern.ts';
import type { SpendBand } from './spend-bands.ts';

export interface Policy {
  /** Which fact earns points: payment (default) or the order being placed. */
  earnTrigger: 'paid' | 'placed';
  /** A partial refund leaves the points alone (default) or cancels them all. */
  partialRefund: 'ignore' | 'cancel';
  /** Orders below this total (in the order's currency) earn nothing. Decimal string. */
  minimumTotal: string;
  /** Order sources (lower case) that earn nothing, such as pos. */
  excludedSources: readonly string[];
  /**
   * The loyalty service needs lp_mobile for earn, so an order without one is
   * skipped rather than sent to fail. Turn off only for an account whose
   * service accepts earn without a mobile number.
   */
  requireMobile: boolean;
  countTestOrders: boolean;
  /** 0: approve on fulfilment. N: approve N days after earning, when no refund or cancellation came. */
  pendingDays: number;
  referral: {
    /** Note or cart attribute whose value is the campaign id. */
    attributeKey: string | null;
    /** Discount code (upper case) to campaign id. */
    discountCampaigns: Readonly<Record<string, number>>;
    /** Landing-site query parameter whose value is the campaign id. */
    landingParam: string | null;
    /** The campaign of an order whose referrer is known and whose campaign is not (a referrer's discount code). */
    defaultCampaignId: number | null;
    /** Who referred the customer: read from the order, sent as the one referrer field of this kind. */
    referrer: {
      kind: ReferrerKind;
      /** Note or cart attribute whose value is the referrer. */
      attributeKey: string | null;
      /** Landing-site query parameter whose value is the referrer. */
      landingParam: string | null;
      /** Discount codes that are a referrer's code; the first group, or the whole code, is the referrer. */
      discountCodePattern: CodePattern | null;
    };
  };
  conversion: {
    /** purchase_amount: the order's total in the shop's currency, or its subtotal (goods after discounts, before shipping and tax). */
    purchaseAmount: 'total' | 'subtotal';
    /** Approve conversions as orders' points are approved, reject them as orders are cancelled or refunded. */
    confirm: boolean;
  };
  /**
   * Points by spend: the order's total picks the activity of the highest band
   * it reaches. Empty: every order earns under the one configured activity.
   */
  earnBands: readonly SpendBand[];
  redemption: {
    /** Discount codes that were paid for with loyalty points. */
    codePattern: CodePattern | null;
    /** Points redeemed per unit of currency the code took off. */
    pointsPerUnit: number;
  };
}

export const DEFAULT_POLICY: Policy = {
  earnTrigger: 'paid',
  partialRefund: 'ignore',
  minimumTotal: '0',
  excludedSources: [],
  requireMobile: true,
  countTestOrders: false,
  pendingDays: 0,
  referral: {
    attributeKey: 'loyalty_campaign',
    discountCampaigns: {},
    landingParam: 'loyalty_campaign',
    defaultCampaignId: null,
    referrer: {
      kind: 'code',
      attributeKey: 'loyalty_referrer',
      landingParam: 'loyalty_referrer',
      discountCodePattern: null,
    },
  },
  conversion: { purchaseAmount: 'total', confirm: true },
  earnBands: [],
  redemption: { codePattern: codePattern('^LOYALTY-'), pointsPerUnit: 100 },
};
