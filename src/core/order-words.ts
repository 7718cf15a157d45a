// Every state and reason an order can show, in plain words with the fix: one place for the operator's dashboard,
// the merchant's page (through the admin API's `words`) and `loyalty-bridge status`. The codes stay in the answers;
// these are what a person reads. A merchant is never shown a configuration name; an operator sees it as a detail.
import {
  ATTENTION_REASONS,
  type AttentionReason,
  type SkipReason,
  type TargetState,
  type WaitingReason,
} from './lifecycle.ts';
import type { Fact } from './order-event.ts';
import type { CallRecord, ConversionStatus, OrderRecord, UpstreamPoints } from './order-record.ts';
import type { Policy } from './policy.ts';
import { redemptionSummary } from './redeems.ts';

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

/** Every reason an order can show: what a listing may be narrowed by. */
export const REASON_CODES = Object.keys(REASON_WORDS) as [ReasonCode, ...ReasonCode[]];

const isReasonCode = (code: string): code is ReasonCode => Object.hasOwn(REASON_WORDS, code);

/** What each call does, for "held" in an order's words, its calls made, and its dead letters. */
export const CALL_WORDS: Record<CallRecord['operation'], string> = {
  earn: 'giving its points',
  approve: 'approving its points',
  cancel: 'cancelling its points',
  redeem: 'taking the points spent on it',
  conversion: 'rewarding its referrer',
  approveConversion: 'approving its referral',
  rejectConversion: 'rejecting its referral',
};

/** A dead letter's call in words: what it did for its order, or the change by hand it was. */
export function letterCallWords(letter: { operation?: string | undefined; adjustmentId?: string | undefined }) {
  const { operation, adjustmentId } = letter;
  if (operation === undefined) return null;
  if (adjustmentId !== undefined)
    return operation === 'redeem' ? 'taking points back by hand' : 'giving points by hand';
  return CALL_WORDS[operation as CallRecord['operation']] ?? operation;
}

/** How a call went, as its calls made list it. */
export const OUTCOME_WORDS: Record<CallRecord['outcome'], string> = {
  success: 'done',
  retry: 'failed; tried again',
  failed: 'refused; held until it is sent again',
};

/** Each state in a few words, where a sentence does not fit (a chart's label, a filter's choice). */
export const STATE_LABELS: Record<TargetState, string> = {
  new: 'not earning yet',
  earned: 'earned, pending',
  approved: 'earned and approved',
  cancelled: 'points cancelled',
  void: 'cancelled before earning',
  skipped: 'earns no points',
};

/** What the store said of an order, each fact in words. */
export const FACT_WORDS: Record<Fact, string> = {
  placed: 'placed',
  paid: 'paid',
  fulfilled: 'fulfilled',
  partiallyRefunded: 'partly refunded',
  fullyRefunded: 'refunded in full',
  cancelled: 'cancelled',
};

/** What the loyalty service holds for an order, as it stands. */
const SERVICE_POINTS_WORDS: Record<UpstreamPoints, string> = {
  none: 'no points given yet',
  earning: 'points being given (the service’s answer is not in yet)',
  earned: 'points given, pending',
  approved: 'points given and approved',
  cancelled: 'points given, then taken back',
};

type Upstream = OrderRecord['upstream'];

const CONVERSION_WORDS: Record<Upstream['conversion'], string> = {
  none: 'no referral to reward',
  sending: 'the referral is being sent (the service’s answer is not in yet)',
  sent: 'the referral was sent',
  void: 'the referral never reached the service',
};

const CONVERSION_STATUS_WORDS: Record<ConversionStatus, string> = {
  pending: 'pending',
  approved: 'approved',
  rejected: 'rejected',
};

const REDEMPTION_WORDS: Record<Upstream['redemption'], string> = {
  none: 'no points spent on it',
  sending: 'the points spent on it are being taken (the service’s answer is not in yet)',
  sent: 'the points spent on it were taken',
};

/** Every code an order's answer carries, by field: what a page must never show bare (the browser tests read it). */
export const SHOWN_CODES = {
  state: Object.keys(STATE_LABELS),
  reason: REASON_CODES,
  servicePoints: Object.keys(SERVICE_POINTS_WORDS),
  conversion: [...Object.keys(CONVERSION_WORDS), ...Object.keys(CONVERSION_STATUS_WORDS)],
  redemption: Object.keys(REDEMPTION_WORDS),
  operation: Object.keys(CALL_WORDS),
  outcome: Object.keys(OUTCOME_WORDS),
  fact: Object.keys(FACT_WORDS),
} as const;

/** What the loyalty service holds for an order, in words: its points, its referral, the points spent on it. */
export function serviceWords(upstream: {
  points: UpstreamPoints;
  conversion: Upstream['conversion'];
  conversionStatus?: ConversionStatus | null | undefined;
  redemption: Upstream['redemption'];
  redeemedPoints?: number | null | undefined;
  redeemCodes?: Upstream['redeemCodes'];
}): { points: string; conversion: string; redemption: string } {
  const status = upstream.conversionStatus;
  // A record's own fields (its reward codes' redeems beside its own), or a view's, already summed.
  const spent = upstream.redeemCodes
    ? redemptionSummary({ ...upstream, redeemedPoints: upstream.redeemedPoints ?? undefined })
    : upstream;
  return {
    points: SERVICE_POINTS_WORDS[upstream.points] ?? upstream.points,
    conversion:
      upstream.conversion === 'sent' && status
        ? `${CONVERSION_WORDS.sent}, ${CONVERSION_STATUS_WORDS[status]}`
        : (CONVERSION_WORDS[upstream.conversion] ?? upstream.conversion),
    redemption:
      spent.redemption === 'sent' && spent.redeemedPoints
        ? `the ${spent.redeemedPoints} points spent on it were taken`
        : (REDEMPTION_WORDS[spent.redemption] ?? spent.redemption),
  };
}

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
  // The state is the plan; while the earn itself is held, no points were given, whatever the plan says.
  const state = held.includes('earn') ? 'No points given yet.' : stateWords(target.state, context);
  const parts = target.state === 'skipped' && reason ? [reason.says] : [state, ...(reason ? [reason.says] : [])];
  const calls = held.map((operation) => CALL_WORDS[operation as CallRecord['operation']] ?? operation);
  if (calls.length > 0)
    parts.push(
      `Held: the loyalty service refused ${calls.join(' and ')}; it waits until it is sent again from ${audience === 'merchant' ? 'Could not go on' : 'Dead letters'}.`,
    );
  return { ...reason, says: parts.join(' ') };
}

/** The words as one line (the CLI): the sentence, the fix, and the setting's name last. */
export const wordsLine = ({ says, fix, setting }: OrderWords): string =>
  `${says}${fix ? ` Fix: ${fix}.` : ''}${setting ? ` [${setting}]` : ''}`;

/**
 * An order's state in a few words, capitalised: what happened, not the plan, while a call is held ("No points
 * given yet" while its earn is, "Refused: cancelling its points" while its cancel is).
 */
export function orderLabel(target: { state: string }, held: readonly string[]): string {
  const first = held[0];
  const label = held.includes('earn')
    ? 'no points given yet'
    : first !== undefined
      ? `refused: ${CALL_WORDS[first as CallRecord['operation']] ?? first}`
      : (STATE_LABELS[target.state as TargetState] ?? target.state);
  return `${label.charAt(0).toUpperCase()}${label.slice(1)}`;
}

/** What an order's colour means, the same on every page: earned green, no points grey, problems red. */
export type OrderTone = 'good' | 'pending' | 'waiting' | 'none' | 'warn' | 'bad';
const STATE_TONES: Record<TargetState, OrderTone> = {
  approved: 'good',
  earned: 'pending',
  new: 'waiting',
  skipped: 'none',
  void: 'none',
  cancelled: 'warn',
};
const isAttention = (reason: string | undefined) => (ATTENTION_REASONS as readonly unknown[]).includes(reason);

/**
 * An order's tone: red while the service refused a call of it (held) or it needs a person's eye, amber while a
 * failed call waits to be tried again; else its state's (an earn planned is not green until nothing holds it).
 */
export function orderTone(
  target: { state: string; reason?: string | undefined },
  held: readonly string[],
  retrying: boolean,
): OrderTone {
  if (held.length > 0 || isAttention(target.reason)) return 'bad';
  if (retrying) return 'warn';
  return STATE_TONES[target.state as TargetState] ?? 'waiting';
}

/**
 * An order's status in one short line, for a row of a table: its state in a few words, and whether a held call
 * or a reason (skipped, or listed for the merchant's eye) waits in its detail, where the sentence and fix are.
 */
export function orderLine(target: { state: string; reason?: string | undefined }, held: readonly string[]): string {
  const more = held.length > 0 ? ': held' : target.reason !== undefined ? ': see why' : '';
  return `${orderLabel(target, held)}${more}`;
}
