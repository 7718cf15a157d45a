// The operations of the loyalty API over the sandbox's store, and the path
// each answers at. Each takes the merged parameters and returns what the
// reply should say; none knows about HTTP beyond the status of a refusal.
import { formatServiceTimestamp, REFERRER_FIELDS, SERVICE_MESSAGE, type TransactionType } from '../loyalty/protocol.ts';
import {
  CONFIRM_REQUIRED,
  confirmParams,
  conversionParams,
  earnParams,
  readParams,
  redeemParams,
  transactionParams,
  updatePointsParams,
} from './params.ts';
import type { Conversion, Customer, Earning, Redemption, SandboxStore } from './store.ts';

export type OperationOutcome =
  | { ok: true; message: string; data: Record<string, unknown> }
  /** status 200: a failure on HTTP 200, as conversion/confirm documents its answers. message: the service's text, when not the status's usual one. */
  | { ok: false; status: 200 | 400 | 402; detail: string; message?: string };

type Params = Record<string, unknown>;

const invalid = (detail: string): OperationOutcome => ({ ok: false, status: 400, detail });
const success = (data: Record<string, unknown>, message = 'Success'): OperationOutcome => ({ ok: true, message, data });

export interface OperationContext {
  store: SandboxStore;
  activities: ReadonlyMap<string, number>;
}

export function earn({ store, activities }: OperationContext, activityId: string, input: Params): OperationOutcome {
  const points = activities.get(activityId);
  if (points === undefined) return { ok: false, status: 402, detail: `unknown activity ${activityId}` };
  const read = readParams(earnParams, input);
  if (!read.ok) return invalid(read.detail);
  const { params } = read;
  const { earning, created } = store.earn({
    activityId,
    points,
    name: params.lp_name,
    email: params.lp_email,
    mobile: params.lp_mobile,
    description: params.lp_description ?? null,
    orderId: params.lp_orderid ?? null,
  });
  return success({ created, earning: earningView(earning) }, created ? 'Points earned' : 'Points updated');
}

export function updatePoints({ store }: OperationContext, input: Params): OperationOutcome {
  const read = readParams(updatePointsParams, input);
  if (!read.ok) return invalid(read.detail);
  const result = store.updatePoints(read.params.lp_orderid, read.params.lp_status);
  if (!result.ok) return invalid(result.detail);
  return success(
    { changed: result.value.changed, earnings: result.value.earnings.map(earningView) },
    result.value.changed > 0 ? 'Points updated' : 'No change',
  );
}

export function redeem({ store }: OperationContext, input: Params): OperationOutcome {
  const read = readParams(redeemParams, input);
  if (!read.ok) return invalid(read.detail);
  const { lp_email: email, lp_mobile: mobile, lp_points: points } = read.params;
  const result = store.redeem(email !== undefined ? { email } : { mobile: mobile ?? '' }, points);
  if (!result.ok) return invalid(result.detail);
  return success(
    { redemption: redemptionView(result.value.redemption), balance: result.value.balance },
    'Points redeemed',
  );
}

export function transaction({ store }: OperationContext, input: Params): OperationOutcome {
  const read = readParams(transactionParams, input);
  if (!read.ok) return invalid(read.detail);
  const { lp_email: email, lp_mobile: mobile, lp_type: type } = read.params;
  const customer = store.findCustomer(email !== undefined ? { email } : { mobile: mobile ?? '' });
  if (!customer) return invalid(`no customer found for ${email !== undefined ? 'lp_email' : 'lp_mobile'}`);
  return success(history(store, customer, type));
}

export function addConversion({ store }: OperationContext, input: Params): OperationOutcome {
  const read = readParams(conversionParams, input);
  if (!read.ok) return invalid(read.detail);
  const { params } = read;
  // The rules let exactly one through.
  const referrerField = REFERRER_FIELDS.find((field) => params[field] !== undefined) ?? 'referrer_code';
  const { conversion, created } = store.addConversion({
    campaignId: params.campaign_id,
    orderId: params.order_id,
    event: params.event ?? null,
    referrer: { field: referrerField, value: String(params[referrerField]) },
    refereeName: params.referee_name ?? null,
    refereeEmail: params.referee_email ?? null,
    refereeMobile: params.referee_mobile ?? null,
    purchaseAmount: params.purchase_amount ?? null,
    customValue: params.custom_value ?? null,
  });
  return success(
    { created, conversion: conversionView(conversion) },
    created ? 'Conversion recorded' : 'Conversion already recorded',
  );
}

/** conversion/confirm, with the answers its documentation gives, failures on HTTP 200. */
export function confirmConversion({ store }: OperationContext, input: Params): OperationOutcome {
  const missing = CONFIRM_REQUIRED.find(
    (field) => input[field] === undefined || input[field] === null || input[field] === '',
  );
  if (missing)
    return { ok: false, status: 200, message: SERVICE_MESSAGE.parametersMissing, detail: `${missing} is required` };
  const read = readParams(confirmParams, input);
  if (!read.ok) return invalid(read.detail);
  const { params } = read;
  const decision = params.status === 1 ? 'approve' : 'reject';
  const result = store.confirmConversion(
    { campaignId: params.campaign_id, orderId: params.order_id, event: params.event },
    decision,
    params.remark ?? null,
  );
  if (!result.ok) {
    return result.reason === 'missing'
      ? {
          ok: false,
          status: 200,
          message: SERVICE_MESSAGE.conversionMissing,
          detail: `no ${params.event} conversion of order_id ${params.order_id} in campaign ${params.campaign_id}`,
        }
      : invalid(result.detail);
  }
  return success(
    { changed: result.changed, conversion: conversionView(result.conversion) },
    decision === 'approve' ? SERVICE_MESSAGE.conversionApproved : SERVICE_MESSAGE.conversionRejected,
  );
}

/** A twin as the path table calls it: an earn takes the activity its path names, the others nothing more. */
export type Operation = (context: OperationContext, params: Params, activityId: string) => OperationOutcome;

// The path each twin answers at: a new call's twin adds its line here.
const ROUTES: Record<string, Operation> = {
  '/loyalty/v1/redeem': (context, params) => redeem(context, params),
  '/loyalty/v1/transaction': (context, params) => transaction(context, params),
  '/loyalty/v1/updatePoints': (context, params) => updatePoints(context, params),
  '/api/v1/conversion/add': (context, params) => addConversion(context, params),
  '/api/v1/conversion/confirm': (context, params) => confirmConversion(context, params),
};
const EARN_PATH = /^\/loyalty\/v1\/earn\/([^/]+)\/?$/;

/** The operation a call's path names (an earn names its activity in the path); undefined for none. */
export function operationFor(path: string): Operation | undefined {
  const earnMatch = EARN_PATH.exec(path);
  return earnMatch
    ? (ctx, params) => earn(ctx, decodeURIComponent(earnMatch[1] ?? ''), params)
    : ROUTES[path.replace(/\/$/, '')];
}

function history(store: SandboxStore, customer: Customer, type: TransactionType): Record<string, unknown> {
  const base = { customer, balance: store.balance(customer) };
  const earned = () => store.earningsOf(customer).map(earningView);
  const redeemed = () => store.redemptionsOf(customer).map(redemptionView);
  switch (type) {
    case 'earn':
      return { ...base, earned: earned() };
    case 'redeem':
      return { ...base, redeemed: redeemed() };
    case 'all':
      return { ...base, earned: earned(), redeemed: redeemed() };
    case 'ledger':
      return { ...base, ledger: ledger(store.earningsOf(customer), store.redemptionsOf(customer)) };
  }
}

/**
 * One combined history, oldest first, with the running balance available to
 * redeem: an earning counts from its approval, a cancelled approval is a
 * reversal, a redemption takes points away. Pending points show but do not count.
 */
function ledger(earnings: Earning[], redemptions: Redemption[]) {
  // points: the entry's own amount; change: what it did to the available balance.
  type Entry = {
    at: string;
    type: 'earn' | 'approve' | 'reversal' | 'cancel' | 'redeem';
    points: number;
    change: number;
    orderId?: string | null;
    activityId?: string;
  };
  const entries: Entry[] = [];
  for (const earning of earnings) {
    const of = { points: earning.points, orderId: earning.orderId, activityId: earning.activityId };
    entries.push({ at: earning.createdAt, type: 'earn', change: 0, ...of });
    if (earning.approvedAt) entries.push({ at: earning.approvedAt, type: 'approve', change: earning.points, ...of });
    if (earning.cancelledAt) {
      const reversal = earning.approvedAt !== null;
      entries.push({
        at: earning.cancelledAt,
        type: reversal ? 'reversal' : 'cancel',
        change: reversal ? -earning.points : 0,
        ...of,
      });
    }
  }
  for (const redemption of redemptions) {
    entries.push({ at: redemption.createdAt, type: 'redeem', points: redemption.points, change: -redemption.points });
  }
  entries.sort((a, b) => a.at.localeCompare(b.at));
  let balance = 0;
  return entries.map(({ at, ...entry }) => {
    balance += entry.change;
    return { date: formatServiceTimestamp(new Date(at)), ...entry, balance };
  });
}

const timestamp = (iso: string | null) => (iso === null ? null : formatServiceTimestamp(new Date(iso)));

const earningView = (earning: Earning) => ({
  ...earning,
  createdAt: timestamp(earning.createdAt),
  updatedAt: timestamp(earning.updatedAt),
  approvedAt: timestamp(earning.approvedAt),
  cancelledAt: timestamp(earning.cancelledAt),
});

const conversionView = (conversion: Conversion) => ({
  ...conversion,
  createdAt: formatServiceTimestamp(new Date(conversion.createdAt)),
  updatedAt: formatServiceTimestamp(new Date(conversion.updatedAt)),
});

const redemptionView = (redemption: Redemption) => ({
  ...redemption,
  createdAt: formatServiceTimestamp(new Date(redemption.createdAt)),
});
