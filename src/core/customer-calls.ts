// The bridge's own calls for a customer that change their points (the worker's, and adjustments by hand): whoever
// keeps something of that customer's balance is told, so that it is stale from then on (the storefront's reader).
import type { Logger } from '../logger.ts';

export interface CustomerCall {
  account: string;
  customer: { email?: string; mobile?: string };
  referrer?: { email?: string; mobile?: string };
}

export type CustomerCallListener = (call: CustomerCall) => void;

/** Tells each listener; one that throws is logged, and the others are told all the same. */
export function tellCustomerCall(listeners: Iterable<CustomerCallListener>, call: CustomerCall, logger: Logger): void {
  for (const listener of listeners) {
    try {
      listener(call);
    } catch (error) {
      logger.warn({ err: error }, 'a listener to customer calls failed');
    }
  }
}
