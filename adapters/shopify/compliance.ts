// Shopify's mandatory compliance topics (customers/redact, customers/data_request, shop/redact) as privacy
// requests, read as Shopify's privacy law compliance documentation gives their bodies. Shopify sends
// customers/redact 10 days after the request when the customer has no order in the last six months, and
// shop/redact 48 hours after an uninstall.
import type { PrivacyRequest } from '../../src/core/privacy-request.ts';
import { asArray, asRecord, asString, idDigits, scalarText } from '../shared/json.ts';

/** The body's shop_domain is the shop (checked against the header before the answer: guarded-bodies.ts). */
export function complianceRequest(topic: string, payload: unknown): PrivacyRequest | { unusable: string } {
  const body = asRecord(payload);
  const shopDomain = asString(body.shop_domain)?.toLowerCase();
  if (!shopDomain) return { unusable: `${topic} names no shop_domain` };
  const customer = asRecord(body.customer);
  const identity = {
    ...(idDigits(customer.id) ? { id: idDigits(customer.id) } : {}),
    ...(asString(customer.email) ? { email: asString(customer.email)! } : {}),
    ...(scalarText(customer.phone) ? { phone: scalarText(customer.phone)! } : {}),
  };
  const ids = (value: unknown) =>
    asArray(value)
      .map(idDigits)
      .filter((id): id is string => id !== undefined);
  switch (topic) {
    case 'customers/redact': {
      const orderIds = ids(body.orders_to_redact);
      if (!identity.email && !identity.phone && orderIds.length === 0)
        return { unusable: 'customers/redact names no e-mail, phone or order to erase' };
      return { type: 'customer-redact', platform: 'shopify', shop: shopDomain, customer: identity, orderIds };
    }
    case 'customers/data_request': {
      const requestId = scalarText(asRecord(body.data_request).id) ?? undefined;
      return {
        type: 'data-request',
        platform: 'shopify',
        shop: shopDomain,
        customer: identity,
        orderIds: ids(body.orders_requested),
        ...(requestId ? { requestId } : {}),
      };
    }
    case 'shop/redact':
      return { type: 'shop-redact', platform: 'shopify', shop: shopDomain };
    default:
      return { unusable: `${topic} is not a compliance topic` };
  }
}
