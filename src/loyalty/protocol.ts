// The loyalty service's wire protocol: paths, headers and the messages it
// answers with. The client and the sandbox both read them from here, so the
// two cannot drift apart. Below them, what each of the client's calls takes:
// a new call's path, enums and input are on this one page.

export const HEADER = {
  apiKey: 'x-api-key',
  brandId: 'x-brand-id',
  accept: 'accept',
  contentType: 'content-type',
  retryAfter: 'retry-after',
} as const;

export const PATH = {
  earn: (activityId: string) => `/loyalty/v1/earn/${encodeURIComponent(activityId)}`,
  redeem: '/loyalty/v1/redeem',
  transaction: '/loyalty/v1/transaction',
  updatePoints: '/loyalty/v1/updatePoints',
  conversion: '/api/v1/conversion/add',
  conversionConfirm: '/api/v1/conversion/confirm',
} as const;

/** The address of the real service (its documentation's "Getting Started"). */
export const SERVICE_BASE_URL = 'https://www.ref-r.com';

/** The service's own error texts, as its documentation gives them. */
export const SERVICE_MESSAGE = {
  invalidSource: 'Invalid Source',
  invalidAuth: 'Invalid auth',
  invalidUrl: 'Invalid URL',
  rateLimited: 'Rate limit exceeded',
  success: 'Success',
  /** conversion/confirm's documented failures. */
  parametersMissing: 'Parameters missing',
  conversionMissing: 'conversion does not exist',
  conversionApproved: 'Order successfully approved',
  conversionRejected: 'Order successfully canceled',
} as const;

/** The two shapes replies come in: the documented `response` object, and the flat one code calling /api/v1 reads. */
export const REPLY_STYLES = ['envelope', 'flat'] as const;
export type ReplyStyle = (typeof REPLY_STYLES)[number];

/** Who referred the customer, as conversion/add takes it: exactly one of these fields ("send only one"). */
export const REFERRER_KINDS = ['code', 'unique_code', 'email', 'mobile'] as const;
export type ReferrerKind = (typeof REFERRER_KINDS)[number];
export const referrerField = (kind: ReferrerKind) => `referrer_${kind}` as const;
export const REFERRER_FIELDS = REFERRER_KINDS.map(referrerField);

export const CONVERSION_EVENTS = ['sale', 'register'] as const;
export type ConversionEvent = (typeof CONVERSION_EVENTS)[number];

/** conversion/confirm's status: 1 approves, 2 rejects. */
export const CONVERSION_STATUS = { approve: 1, reject: 2 } as const;
export type ConversionDecision = keyof typeof CONVERSION_STATUS;

export const TRANSACTION_TYPES = ['earn', 'redeem', 'all', 'ledger'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const POINT_STATUSES = ['approve', 'cancel'] as const;
export type PointStatusChange = (typeof POINT_STATUSES)[number];

/** The service's timestamp format, yyyy-MM-ddTHH:mm:ss, always UTC. */
export const formatServiceTimestamp = (date: Date): string => date.toISOString().slice(0, 19);

// The inputs of the client's calls: who the points belong to and what each call sends.

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
