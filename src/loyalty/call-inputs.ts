// The inputs of the client's operations: who the points belong to and what each call sends.
// Types only, kept apart from the client so that the calls read on one page.
import type {
  ConversionDecision,
  ConversionEvent,
  PointStatusChange,
  ReferrerKind,
  TransactionType,
} from './protocol.ts';

/** Who the points belong to. The service needs an e-mail or a mobile number for most operations. */
export type CustomerRef = { email: string; mobile?: string } | { email?: string; mobile: string };

export interface EarnInput {
  activityId: string;
  name: string;
  email: string;
  mobile: string;
  description?: string;
  /** Exact decimal digits; never a JS number, ids exceed 2^53. */
  orderId?: string;
}

export type RedeemInput = CustomerRef & { points: number };
export type TransactionsInput = CustomerRef & { type: TransactionType };
export interface UpdatePointsInput {
  status: PointStatusChange;
  orderId: string;
}
export interface Referrer {
  kind: ReferrerKind;
  value: string;
}

export interface ConversionInput {
  orderId: string;
  campaignId: number;
  event: ConversionEvent;
  /** Sent as the one referrer_<kind> field the service takes. */
  referrer: Referrer;
  refereeName?: string | undefined;
  refereeEmail?: string | undefined;
  refereeMobile?: string | undefined;
  /** Exact decimal text in the shop's currency; sent as text, never through a float. */
  purchaseAmount?: string | undefined;
  customValue?: string | undefined;
}

export interface ConfirmConversionInput {
  orderId: string;
  campaignId: number;
  event: ConversionEvent;
  decision: ConversionDecision;
  remark?: string | undefined;
}
