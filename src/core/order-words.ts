// Every state and reason an order can show, in plain words with the fix: one place for the operator's dashboard,
// the merchant's page (through the admin API's `words`) and `loyalty-bridge status`. The codes stay in the answers;
// these are what a person reads. A merchant is never shown a configuration name; an operator sees it as a detail.
import { type AttentionReason, type SkipReason, type TargetState, type WaitingReason } from './lifecycle.ts';
import type { Policy } from './policy.ts';

export type Audience = 'merchant' | 'operator';
export type ReasonCode = SkipReason | AttentionReason | WaitingReason;

interface ReasonWords {
  /** What happened to the order, as a sentence. */
  why: string;
  /**
   * Where to change it, by audience; absent where nothing can be done. `viaOperator`: the merchant's, where the
   * program is not theirs to change (an account the operator set up), for a fix in Set up.
   */
  fix?: Record<Audience, string> & { viaOperator?: string };
  /** The configuration name behind it, shown to operators only. */
  setting?: string;
}

/** What a person reads of an order: the sentence, the fix, and (operators only) the setting's name. */
export interface OrderWords {
  says: string;
  fix?: string;
  setting?: string;
}

const OPERATOR_SETTINGS = 'the account’s program settings';

/** One entry per code the core gives: a code missing here does not type-check. */
export const REASON_WORDS: Record<ReasonCode, ReasonWords> = {
  test_order: {
    why: 'This is a test order, and test orders earn no points in your program.',
    fix: {
      merchant: 'Set up, Test orders earn points too',
      operator: `Test orders earn points too, in ${OPERATOR_SETTINGS}`,
      viaOperator: 'ask the bridge’s operator, who runs your program, to let test orders earn',
    },
    setting: 'COUNT_TEST_ORDERS',
  },
  excluded_source: {
    why: 'This order came from a sales channel your program leaves out, so it earns no points.',
    fix: {
      merchant: 'Set up, Sales channels that earn nothing',
      operator: `Sales channels that earn nothing, in ${OPERATOR_SETTINGS}`,
      viaOperator: 'ask the bridge’s operator, who runs your program, to let this channel earn',
    },
    setting: 'EXCLUDED_SOURCES',
  },
  below_minimum: {
    why: 'This order’s total is below the smallest that earns in your program, so it earns no points.',
    fix: {
      merchant: 'Set up, Smallest order total that earns (or the lowest total of points by spend)',
      operator: `Smallest order total that earns, or points by spend, in ${OPERATOR_SETTINGS}`,
      viaOperator: 'ask the bridge’s operator, who runs your program, to lower the smallest total that earns',
    },
    setting: 'MIN_ORDER_TOTAL, LOYALTY_EARN_ACTIVITIES',
  },
  missing_email: {
    why: 'This customer gave no e-mail address, which the loyalty service needs to give points, so the order earns none.',
    fix: {
      merchant: 'ask for an e-mail address at your store’s checkout',
      operator: 'the store asks for an e-mail address at checkout',
    },
  },
  missing_mobile: {
    why: 'This customer gave no phone number, and your program requires one, so the order earns no points.',
    fix: {
      merchant: 'Set up, Customers need a phone',
      operator: `Customers need a phone, in ${OPERATOR_SETTINGS}`,
      viaOperator: 'ask the bridge’s operator, who runs your program, to let orders without a phone earn',
    },
    setting: 'REQUIRE_MOBILE',
  },
  protected_data_hidden: {
    why: 'The store hid this customer’s e-mail and phone from the app, so the order cannot earn points.',
    fix: {
      merchant: 'let the app read customers’ contact details, then read the order again from Orders',
      operator: 'grant the app access to customers’ contact details, then resync the order',
    },
  },
  customer_erased: {
    why: 'This customer’s details were erased at their request, so the order cannot earn points.',
  },
  referral_without_referrer: {
    why: 'It came with a referral campaign, but nobody to reward: no referrer was found in the order.',
    fix: {
      merchant: 'ask the bridge’s operator to check how referrers are found',
      operator: `how referrers are found, in ${OPERATOR_SETTINGS}`,
    },
    setting: 'REFERRAL_REFERRER_*',
  },
  points_redeemed_on_cancelled_order: {
    why: 'The customer spent points on this order, and it was cancelled: they have not had those points back.',
    fix: {
      merchant: 'ask the bridge’s operator to give them back',
      operator: 'Points redeemed on a cancelled order, Give … points back',
    },
  },
  no_account: {
    why: 'This store earns on no loyalty account yet: the order waits, and earns once one is set up.',
    fix: {
      merchant: 'Set up, your loyalty account',
      operator: 'Loyalty accounts, Which account each shop earns on',
      viaOperator: 'ask the bridge’s operator to link your store to a loyalty account',
    },
  },
  account_removed: {
    why: 'The loyalty account this order earned on was removed: the order waits.',
    fix: {
      merchant: 'ask the bridge’s operator to link your store to an account',
      operator: 'Loyalty accounts, Which account each shop earns on: link the store to another account',
    },
  },
};

export const isReasonCode = (code: string): code is ReasonCode => Object.hasOwn(REASON_WORDS, code);

/** What each call held by a dead letter does, for "held" in an order's words. */
const CALL_WORDS: Record<string, string> = {
  earn: 'giving its points',
  approve: 'approving its points',
  cancel: 'cancelling its points',
  redeem: 'taking the points spent on it',
  conversion: 'rewarding its referrer',
  approveConversion: 'approving its referral',
  rejectConversion: 'rejecting its referral',
};

export interface WordsContext {
  audience: Audience;
  /** The account's rules, where known: what pending waits for, and when an order earns. */
  policy?: Pick<Policy, 'pendingDays' | 'earnTrigger'> | undefined;
  /** When its pending period ends (approvalDueAt), where one is running. */
  pendingUntil?: Date | undefined;
  /** The merchant may change their program (Set up): false on an account the operator set up. */
  mayChangeProgram?: boolean | undefined;
  /** The platform's own words for reasons only it gives (PlatformParts.skipReasons). */
  platformReasons?: Readonly<Record<string, { why: string; fix: string }>> | undefined;
  /** Calls held by a dead letter, by operation. */
  held?: readonly string[] | undefined;
}

const day = (at: Date) => at.toISOString().slice(0, 10);

/** The state as a sentence; "pending" says until when or what. */
export function stateWords(state: string, context: Omit<WordsContext, 'audience'> = {}): string {
  const { policy, pendingUntil } = context;
  switch (state as TargetState) {
    case 'earned': {
      if (!policy) return 'Points earned, pending until they are approved.';
      if (policy.pendingDays <= 0) return 'Points earned, pending until the order is fulfilled.';
      const days = `${policy.pendingDays} day${policy.pendingDays === 1 ? '' : 's'}`;
      return pendingUntil
        ? `Points earned, pending until ${day(pendingUntil)}, ${days} after it was ${policy.earnTrigger}.`
        : `Points earned, pending for ${days} after it was ${policy.earnTrigger}.`;
    }
    case 'approved':
      return 'Points earned and approved: they are no longer pending.';
    case 'cancelled':
      return 'Points cancelled: the order was cancelled or refunded after it earned them.';
    case 'void':
      return 'Nothing to earn: the order was cancelled or refunded before it earned points.';
    case 'skipped':
      return 'Earns no points.';
    case 'new':
      return `Not earning yet: points come when the order is ${policy?.earnTrigger ?? 'paid'}.`;
    default:
      return `${state}.`;
  }
}

/** A reason alone in words (counts of orders by reason): the platform's own words first. */
export function reasonWords(
  reason: string,
  {
    audience,
    platformReasons,
    mayChangeProgram = true,
  }: Pick<WordsContext, 'audience' | 'platformReasons' | 'mayChangeProgram'>,
): OrderWords {
  const platform = platformReasons?.[reason];
  const known = isReasonCode(reason) ? REASON_WORDS[reason] : undefined;
  const viaOperator = audience === 'merchant' && !mayChangeProgram ? known?.fix?.viaOperator : undefined;
  const fix = platform?.fix ?? viaOperator ?? known?.fix?.[audience];
  return {
    says: platform?.why ?? known?.why ?? `Listed as ${reason}.`,
    ...(fix ? { fix } : {}),
    ...(audience === 'operator' && known?.setting ? { setting: known.setting } : {}),
  };
}

/** An order's state and reason in a person's words, with the fix for them. */
export function orderWords(target: { state: string; reason?: string | undefined }, context: WordsContext): OrderWords {
  const { audience, held = [] } = context;
  const reason = target.reason === undefined ? undefined : reasonWords(target.reason, context);
  // A skipped order's reason says it all; any other state is told first.
  const parts =
    target.state === 'skipped' && reason
      ? [reason.says]
      : [stateWords(target.state, context), ...(reason ? [reason.says] : [])];
  const calls = held.map((operation) => CALL_WORDS[operation] ?? operation);
  if (calls.length > 0)
    parts.push(
      `Held: the loyalty service refused ${calls.join(' and ')}; it waits until it is sent again from ${audience === 'merchant' ? 'Could not go on' : 'Dead letters'}.`,
    );
  return { ...reason, says: parts.join(' ') };
}

/** The words as one line (the CLI): the sentence, the fix, and the setting's name last. */
export const wordsLine = ({ says, fix, setting }: OrderWords): string =>
  `${says}${fix ? ` Fix: ${fix}.` : ''}${setting ? ` [${setting}]` : ''}`;
