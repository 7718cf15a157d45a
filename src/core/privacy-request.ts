// A privacy request as a platform sends it (its compliance topics), in
// neutral form. The same requests come from the admin API and the CLI for
// every platform.
import type { CustomerMatch } from './store/ledger-store.ts';

export interface CustomerIdentity {
  id?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
}

export type PrivacyRequest =
  /** Erase a customer's personal data (customers/redact). */
  | { type: 'customer-redact'; platform: string; shop: string; customer: CustomerIdentity; orderIds: string[] }
  /** The customer asked what is held about them (customers/data_request): recorded for the merchant to export. */
  | {
      type: 'data-request';
      platform: string;
      shop: string;
      customer: CustomerIdentity;
      orderIds: string[];
      requestId?: string | undefined;
    }
  /** Erase everything of a shop (shop/redact, 48 hours after an uninstall). */
  | { type: 'shop-redact'; platform: string; shop: string };

export function matchOf(request: {
  platform: string;
  shop: string;
  customer: CustomerIdentity;
  orderIds: string[];
}): CustomerMatch {
  return {
    platform: request.platform,
    shop: request.shop,
    emails: request.customer.email ? [request.customer.email] : [],
    phones: request.customer.phone ? [request.customer.phone] : [],
    orderIds: request.orderIds,
    ...(request.customer.id ? { customerIds: [request.customer.id] } : {}),
  };
}
