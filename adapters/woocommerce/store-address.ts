// Whether a store address a user gave may be connected, in words that say
// what to do instead. Asked when the connect starts (dashboard, CLI) and when
// the keys come back (the /wc-auth callback); each connection to the store is
// checked again on the address it resolves to (src/net/outbound.ts).
import { userAddressRefusal, type UserAddressPolicy } from '../../src/net/user-address.ts';
import type { Refusal } from '../../src/net/refusal.ts';
import { StoreAddressError } from './shop-identity.ts';

const DEVELOPMENT =
  'To connect a store on this machine or your network while developing, set ALLOW_PRIVATE_STORE_ADDRESSES=true';

export function storeAddressProblem(refusal: Refusal): string {
  switch (refusal.kind) {
    case 'insecure':
      return `the store address must be https: WooCommerce sends the consumer key and secret only over HTTPS (${refusal.url} is plain http)`;
    case 'private_address': {
      const where =
        refusal.address === refusal.host || refusal.address === 'this machine'
          ? `${refusal.host} is`
          : `${refusal.host} resolves to ${refusal.address}, which is`;
      return `${where} not a public internet address (this machine, or a private or link-local network): a connected store must be reachable on the internet. ${DEVELOPMENT}`;
    }
    case 'redirect':
      return `the store address redirects elsewhere (${refusal.to}): connect it under that address`;
  }
}

/** Throws a StoreAddressError when the store may not be connected. */
export async function refuseStoreAddress(storeUrl: string, policy: UserAddressPolicy): Promise<void> {
  const refusal = await userAddressRefusal(new URL(storeUrl), policy);
  if (refusal) throw new StoreAddressError(storeAddressProblem(refusal));
}
