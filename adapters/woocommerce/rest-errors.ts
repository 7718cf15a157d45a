// What can go wrong with a store's REST API, and what a person does about it.
import { refusalText, type Refusal } from '../../src/net/refusal.ts';
import { BridgeError } from '../../src/errors.ts';

/**
 * refused: the key did not get in; read_only: it got in but may not write;
 * unavailable: the store did not answer; answer: it answered something
 * unusable; redirected: it sent the request to another address, which is not
 * followed; address_refused: its address is plain http, or resolved to this
 * machine or its network. Only unavailable may pass by itself.
 */
export type WooRestErrorCode = 'refused' | 'read_only' | 'unavailable' | 'answer' | 'redirected' | 'address_refused';

export class WooRestError extends BridgeError<WooRestErrorCode> {
  readonly status: number | undefined;
  /**
   * The store no longer lets the bridge in: its key refused (revoked in WooCommerce), or no store held at all; not a
   * key that got in but may not do this (403). The code sweeper reads it (capabilities/codes.ts).
   */
  readonly accessGone: boolean;
  /** Asking again later may succeed (the store did not answer), as Shopify's and BigCommerce's errors say. */
  readonly transient: boolean;
  constructor(message: string, code: WooRestErrorCode, status?: number) {
    super(code, message);
    this.status = status;
    this.accessGone = code === 'refused' && status !== 403;
    this.transient = code === 'unavailable';
  }
}

/** The store's own address within a REST URL: what comes before /wp-json. */
const storeAddressIn = (url: string) => {
  const at = url.indexOf('/wp-json/');
  return at > 0 ? url.slice(0, at) : new URL(url).origin;
};

/**
 * A request the outbound policy refused. A redirect means the store lives at
 * another address (www., https, another port): the fix is to use that one,
 * by its setting for the configured store, by connecting again otherwise.
 */
export function wooRefusalError(refusal: Refusal, storeUrl: string, addressSetting: string | undefined): WooRestError {
  switch (refusal.kind) {
    case 'redirect': {
      const address = storeAddressIn(refusal.to);
      const fix = addressSetting ? `set ${addressSetting}=${address}` : `connect it under that address (${address})`;
      return new WooRestError(
        `the store at ${storeUrl} answered ${refusal.status} to ${refusal.to}: the bridge follows no redirect to another host, port or scheme, so that its key goes nowhere else; ${fix}`,
        'redirected',
        refusal.status,
      );
    }
    case 'insecure':
      return new WooRestError(
        `the store address must be https: WooCommerce accepts the consumer key and secret only over HTTPS (${refusal.url} is plain http)`,
        'address_refused',
      );
    case 'private_address':
      return new WooRestError(
        `the store at ${storeUrl} is refused: ${refusalText(refusal)}. A store must be on the internet; to develop against one on this machine or your network, set ALLOW_PRIVATE_STORE_ADDRESSES=true`,
        'address_refused',
      );
  }
}
