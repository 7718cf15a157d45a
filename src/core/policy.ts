// The merchant's rules for points, referrals and redemptions. All of it comes
// from configuration; the lifecycle reads nothing else.

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
  };
  redemption: {
    /** Discount codes that were paid for with loyalty points. */
    codePattern: RegExp | null;
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
  referral: { attributeKey: 'loyalty_campaign', discountCampaigns: {}, landingParam: 'loyalty_campaign' },
  redemption: { codePattern: /^LOYALTY-/i, pointsPerUnit: 100 },
};
