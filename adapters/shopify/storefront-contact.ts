// A customer's e-mail and phone, read from the shop's own customer record with the shop's Admin API token
// (never from the browser), for the loyalty service to know them by. At 2026-10 the record's contact is
// defaultEmailAddress.emailAddress and defaultPhoneNumber.phoneNumber (Customer.email and .phone are
// deprecated). Reading it needs read_customers, and Shopify's approval of protected customer data (e-mail,
// phone); without either the answer is 'not-allowed'. What was read never goes into a log line or an error.
//
// Only a verified e-mail counts (Customer.verifiedEmail): on classic customer accounts anyone may register with an
// address that is not theirs, and the service knows its owner by it. A record whose e-mail is not verified gives
// no contact at all, not its phone either, which nobody verified and which its owner's points may be keyed by too.
// (A customer the merchant made in the admin or through the API counts as verified: Shopify says so.)
import { ShopifyAdminError, type ShopifyAdminApi } from './admin-api.ts';
import { forgetScopes, missingScope } from './scopes.ts';

export const CUSTOMER_CONTACT_QUERY = `query LoyaltyBridgeCustomerContact($id: ID!) {
  customer(id: $id) {
    verifiedEmail
    defaultEmailAddress { emailAddress }
    defaultPhoneNumber { phoneNumber }
  }
}`;

interface ContactAnswer {
  customer: {
    verifiedEmail: boolean;
    defaultEmailAddress: { emailAddress: string | null } | null;
    defaultPhoneNumber: { phoneNumber: string | null } | null;
  } | null;
}

export async function customerContact(
  api: ShopifyAdminApi,
  customerId: string,
): Promise<{ email?: string; phone?: string } | 'not-allowed' | undefined> {
  // Only the app proxy's own customer ids (digits) name a record.
  if (!/^\d{1,20}$/.test(customerId)) return undefined;
  let answer;
  try {
    answer = await api.queryPartial<ContactAnswer>(
      CUSTOMER_CONTACT_QUERY,
      { id: `gid://shopify/Customer/${customerId}` },
      2,
    );
  } catch (error) {
    // The scope is missing (Shopify answers no data, ACCESS_DENIED naming it): the scopes remembered were wrong.
    if (error instanceof ShopifyAdminError && error.code === 'ACCESS_DENIED' && missingScope(error.message)) {
      forgetScopes(api);
      return 'not-allowed';
    }
    throw error;
  }
  const customer = answer.data.customer;
  const email = customer?.defaultEmailAddress?.emailAddress ?? undefined;
  const phone = customer?.defaultPhoneNumber?.phoneNumber ?? undefined;
  // Protected customer data not approved: the fields come back null beside ACCESS_DENIED errors. Shopify approves
  // the e-mail and the phone one by one, so either may be withheld alone.
  const denied = answer.partialErrors.filter((error) => error.extensions?.code === 'ACCESS_DENIED');
  if (denied.length > 0 && !email && !phone) return 'not-allowed';
  // An e-mail not verified gives no contact, whether the bridge may read it or not: a withheld address may be
  // someone else's, and the phone beside it then proves nothing either.
  const emailWithheld = denied.some((error) => !error.path || error.path.includes('defaultEmailAddress'));
  if (customer && customer.verifiedEmail !== true && (email || emailWithheld)) return undefined;
  if (!email && !phone) return undefined;
  return { ...(email ? { email } : {}), ...(phone ? { phone } : {}) };
}
