// The operator's actions as one service: what the admin API (/admin/api, behind ADMIN_TOKEN) and its stores' routes
// do, each a method that takes plain input (and, where something changes, who acts: the admin token's label) and
// answers plain data, or throws Refused, BadInput (refused.ts) or Declined (a refusal in one line, as these routes
// always answered it). The routes only read the request, call one method and answer.
import { operatorAccounts, type OperatorAccounts } from './operator/accounts.ts';
import { operatorAdjustments, type OperatorAdjustments } from './operator/adjustments.ts';
import { operatorCustomers, type OperatorCustomers } from './operator/customers.ts';
import { operatorDeadLetters, type OperatorDeadLetters } from './operator/dead-letters.ts';
import { operatorInstalls, type OperatorInstalls } from './operator/installs.ts';
import { operatorOrders, type OperatorOrders } from './operator/orders.ts';
import type { OperatorParts } from './operator/parts.ts';
import { operatorStatus, type OperatorStatus } from './operator/status.ts';
import { operatorStores, type OperatorStores } from './operator/stores.ts';

export type { Adjusted } from './operator/adjusted.ts';
export { SETTINGS_ELSEWHERE, type AccountSettings, type OperatorAccounts } from './operator/accounts.ts';
export type { EarnAsked, OperatorAdjustments } from './operator/adjustments.ts';
export type { OperatorCustomers, PointsAsked } from './operator/customers.ts';
export type { LetterView, OperatorDeadLetters } from './operator/dead-letters.ts';
export { Declined } from './operator/declined.ts';
export type { OperatorInstalls } from './operator/installs.ts';
export type { GiveBackInput, OperatorOrders } from './operator/orders.ts';
export type { ActivityMinutes, OperatorParts, OperatorWords } from './operator/parts.ts';
export { read } from './operator/read.ts';
export type { AccountHealth, ShopView } from './operator/shops.ts';
export type { ConnectionState, OperatorStatus, OperatorStatusBody, ReconciledState } from './operator/status.ts';
export type { ConnectAsked, ConnectBegun, ConnectView, OperatorStores, StoreView } from './operator/stores.ts';

export interface OperatorService {
  /** The status, the loyalty service's probe, the platforms, their connections, activity and reconciliation. */
  status: OperatorStatus;
  /** Orders, one order, points redeemed on cancelled orders (and giving them back), resyncs. */
  orders: OperatorOrders;
  /** Dead letters: listed, one, retried (one or all), discarded. */
  deadLetters: OperatorDeadLetters;
  /** Customers' points, and privacy: export, erase, a shop erased, data requests and their log. */
  customers: OperatorCustomers;
  /** Manual adjustments: listed, points given, points taken. */
  adjustments: OperatorAdjustments;
  /** Loyalty accounts (made, changed, removed, their settings, checked), shops and their links, the audit. */
  accounts: OperatorAccounts;
  /** Stores each platform lists, and a connect started by a store's address. */
  stores: OperatorStores;
  /** The platforms whose app is installed from the dashboard: their shops, an install started. */
  installs: OperatorInstalls;
  /** The platforms the bridge knows, by code name: what a path or a body may name. */
  platformNames(): string[];
}

export function operatorService(parts: OperatorParts): OperatorService {
  return {
    status: operatorStatus(parts),
    orders: operatorOrders(parts),
    deadLetters: operatorDeadLetters(parts),
    customers: operatorCustomers(parts),
    adjustments: operatorAdjustments(parts),
    accounts: operatorAccounts(parts),
    stores: operatorStores(parts),
    installs: operatorInstalls(parts),
    platformNames: () => parts.platforms.directory.map(({ name }) => name),
  };
}
