// Words of a letter or an order as one shop's merchant reads them: another store's order keys (an lp_orderid
// collision names the order that holds the id) told as "an order", and which dead letters are the shop's at all.
import type { ShopRef } from '../../accounts/account-records.ts';
import { isOrderKeyOfShop } from '../../core/store/customer-data.ts';
import type { DeadLetter } from '../../core/store/ledger-store.ts';
import { trimTrailing } from '../../trim-trailing.ts';

/**
 * An order key of any platform in a letter's words, with the word "order" before it: up to the next whitespace (a
 * shop named by its address may hold a ',' or ';'), less the punctuation that closes a clause. A
 * word shaped name:… that is not one (an address) is left as it is. Any word under the shop's own platform is one
 * (another store of it is what a collision names); another platform's keys are told by their shape,
 * name:shop:order id, so http needs no list of platforms. One pass, with no backtracking over the tail.
 */
const ORDER_KEY_IN_TEXT = /(?:order )?\b[a-z][a-z0-9-]{1,30}:\S+/g;

function looksLikeOrderKey(key: string, own: string): boolean {
  const platform = key.slice(0, key.indexOf(':'));
  if (platform === own) return true;
  const rest = key.slice(platform.length + 1);
  return !rest.startsWith('/') && rest.includes(':') && /:\d{1,40}$/.test(rest);
}

/**
 * The order an lp_orderid collision names (collisionReason, lp-order-ids.ts), up to the words after it: a
 * registered platform's shop may hold a space, where the shape above would stop. Bounded by the longest key
 * (platform, shop, order id), so a long reason is read in one pass.
 */
const HOLDER_IN_TEXT = /\bused by order (\S[^\n]{0,340}?) from another store/g;

/**
 * A letter's reason as the shop's merchant reads it: any other store's order
 * key in it (an lp_orderid collision names the order that holds the id, for
 * the operator, "from another store") is told as "an order", so that one store
 * never learns another's domain and order ids from its own letters.
 */
export function reasonForShop(reason: string, shop: ShopRef): string {
  const held = reason.replace(HOLDER_IN_TEXT, (named, key: string) =>
    isOrderKeyOfShop(key, shop.platform, shop.shop) ? named : 'used by an order from another store',
  );
  return held.replace(ORDER_KEY_IN_TEXT, (named) => {
    const unclosed = trimTrailing(named, '.,;:)');
    const closing = named.slice(unclosed.length);
    const key = unclosed.replace(/^order /, '');
    if (!looksLikeOrderKey(key, shop.platform)) return named;
    return isOrderKeyOfShop(key, shop.platform, shop.shop) ? named : `an order${closing}`;
  });
}

/**
 * A dead letter of the shop's: it names the shop (or, a call's, no shop and
 * an order of the shop: platform:shop:order id, the shop exactly), and its
 * delivery, if any, names the same.
 */
export function isLetterOfShop(letter: DeadLetter, shop: ShopRef): boolean {
  const order = letter.orderKey;
  const orderOfShop = order !== undefined && isOrderKeyOfShop(order, shop.platform, shop.shop);
  const named =
    letter.platform === undefined && letter.shop === undefined
      ? orderOfShop
      : letter.platform === shop.platform && letter.shop === shop.shop && (order === undefined || orderOfShop);
  const delivery = letter.delivery;
  return named && (!delivery || (delivery.platform === shop.platform && delivery.shop === shop.shop));
}
