// The storefront's routes of a platform with a `storefront` part, mounted at /<name>/storefront/…: what a
// customer sees of their points on the store's pages. Who asks comes only from what the platform signed
// (storefront.customer); their contact only from the platform's own record, on the bridge's side
// (storefront.contact). Nothing of the contact is ever answered, logged or put in an error. Each of the part's
// entrances (a customer account extension's route) answers the same, once it knows who asks. docs/storefront.md.
import type { AccountRuntime } from '../core/accounts.ts';
import type { PlatformRoute, StorefrontEntrance, StorefrontParts } from '../core/platform-module.ts';
import { serviceCustomer } from '../core/storefront/customer-points.ts';
import type { StorefrontReader } from '../core/storefront/storefront-reader.ts';
import { storefrontOn } from '../core/storefront/storefront-switch.ts';
import { waysToEarn } from '../core/storefront/ways-to-earn.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';

export interface StorefrontRouteParts {
  platform: string;
  storefront: StorefrontParts;
  store: Pick<LedgerStore, 'getRecord'>;
  accounts: {
    forShop(platform: string, shop: string): Promise<string | undefined>;
    runtime(id: string): Promise<AccountRuntime | undefined>;
  };
  reader: StorefrontReader;
}

/** What a customer reads when their points cannot be shown, each in their words. */
export const CUSTOMER_WORDS = {
  notAllowed: 'Your points cannot be shown here yet: the store has to finish setting this up.',
  noContact: 'Your points cannot be shown: your account has no confirmed e-mail address or phone number.',
  busy: 'Your points cannot be shown just now. Try again in a moment.',
} as const;

const NOT_FOUND = { status: 404, json: { error: 'not found' } } as const;

export function storefrontRoutes({
  platform,
  storefront,
  store,
  accounts,
  reader,
}: StorefrontRouteParts): PlatformRoute[] {
  // The proxy's route and every entrance share every step after "who asks".
  const entrances: StorefrontEntrance[] = [
    { path: '/points', customer: (request) => storefront.customer(request) },
    ...(storefront.entrances ?? []),
  ];
  return entrances.map((entrance) => {
    const route: PlatformRoute = {
      method: 'GET',
      path: `/storefront${entrance.path}`,
      ...(entrance.cors ? { cors: entrance.cors } : {}),
      async handle(request) {
        const asker = await entrance.customer(request);
        // Not the platform's: nothing read, nothing recorded.
        if (asker.kind === 'refused')
          return { status: 401, json: { error: 'this request is not signed by the store' } };
        const { shop } = asker;
        if (!(await storefrontOn(store, platform, shop))) return NOT_FOUND;
        const accountId = await accounts.forShop(platform, shop);
        const account = accountId === undefined ? undefined : await accounts.runtime(accountId);
        if (!account) return NOT_FOUND;
        const ways = waysToEarn(account);
        if (asker.kind === 'guest') return { status: 200, json: { customer: 'guest', waysToEarn: ways, signIn: true } };
        const contact = await reader.contact(platform, shop, asker.customerId, () =>
          storefront.contact(shop, asker.customerId),
        );
        const unavailable = (words: string, retryAfterSeconds?: number) => ({
          status: 200,
          json: {
            customer: 'signed-in',
            unavailable: words,
            ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
            waysToEarn: ways,
          },
        });
        if (contact === 'not-allowed') return unavailable(CUSTOMER_WORDS.notAllowed);
        const customer = contact && serviceCustomer(contact);
        if (!customer) return unavailable(CUSTOMER_WORDS.noContact);
        const answer = await reader.points(account, customer);
        if (!answer.ok) return unavailable(CUSTOMER_WORDS.busy, answer.retryAfterSeconds);
        const { balance, history } = answer.points;
        return {
          status: 200,
          json: {
            customer: 'signed-in',
            balance: {
              available: balance.available,
              pending: balance.pending,
              pendingUntil: balance.pendingUntil,
              asOf: answer.asOf,
              source: balance.source,
              missingElsewhere: balance.missingElsewhere,
              stale: answer.stale,
            },
            history,
            waysToEarn: ways,
          },
        };
      },
    };
    return route;
  });
}
