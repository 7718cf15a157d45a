// The loyalty service's wire protocol: paths, headers and the messages it
// answers with. The client and the sandbox both read them from here, so the
// two cannot drift apart.

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
} as const;

/** The service's own error texts, as its documentation gives them. */
export const SERVICE_MESSAGE = {
  invalidSource: 'Invalid Source',
  invalidAuth: 'Invalid auth',
  invalidUrl: 'Invalid URL',
  rateLimited: 'Rate limit exceeded',
  success: 'Success',
} as const;

export const TRANSACTION_TYPES = ['earn', 'redeem', 'all', 'ledger'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const POINT_STATUSES = ['approve', 'cancel'] as const;
export type PointStatusChange = (typeof POINT_STATUSES)[number];

/** The service's timestamp format, yyyy-MM-ddTHH:mm:ss, always UTC. */
export const formatServiceTimestamp = (date: Date): string => date.toISOString().slice(0, 19);
