// What a shop's merchant must look at, and how to put it right, in plain
// words: for the merchant's own page (its Home). Each item says why
// orders may earn nothing, and the fix, which is the merchant's own where it
// can be (their loyalty account, the app's access, protected customer data)
// and the operator's where it cannot (an account the operator set up).
import type { AccountRegistry } from '../accounts/registry.ts';
import { causeOfCheck } from '../accounts/check-cause.ts';
import { lastedWords, lettersOrdersNamed } from './problems.ts';
import { BUDGET_SPENT_LONG_MS } from '../core/worker/account-budgets.ts';
import type { ShopRef } from '../accounts/account-records.ts';
import type { PlatformParts } from '../core/platform-module.ts';

import { reconciliationId } from '../core/reconciler.ts';
import { isOrderKeyOfShop } from '../core/store/customer-data.ts';
import { storefrontOn } from '../core/storefront/storefront-switch.ts';
import type {
  DeadLetter,
  OrderWorkRole,
  OperatorQueries,
  DeadLetterRole,
  RecordRole,
} from '../core/store/ledger-store.ts';
import { trimTrailing } from '../trim-trailing.ts';
import { counted, isAre } from '../counted.ts';
import { HEALTH_KIND } from '../core/order-source.ts';

export interface AttentionItem {
  kind: string;
  /** What is wrong, and what it does to the shop's orders. */
  why: string;
  /** What to do about it; "the bridge's operator" where it is not the merchant's to do. */
  fix: string;
  count?: number;
}

export interface AttentionParts {
  store: OrderWorkRole & OperatorQueries & DeadLetterRole & RecordRole;
  accounts: AccountRegistry;
  /** The shop's platform's module's parts: its own skip reasons, in its words. */
  partsOf: (platform: string) => Pick<PlatformParts, 'notes' | 'storefront'> | undefined;
  /**
   * Since when the account's rate budget has been spent with no real break, where its own orders found it spent;
   * absent: not known. Never where only another account on the same budget (the same key) spent it.
   */
  spentSince?: (account: { id: string; budgetId?: string | undefined }) => number | undefined;
  /** How long a budget is spent before it is a problem (the worker's budgetSpentLongMs). */
  spentLongMs?: number;
  now?: () => Date;
}

/** What stops every call of the shop: its dead letters only fail again until it is put right. */
const STOPS_POINTS = new Set(['no_account', 'credentials_refused', 'address_refused', 'service_unreachable']);

/** The scope every shop's orders need (read_all_orders only for resyncs older than 60 days). */
const NEEDED_SCOPE = 'read_orders';

export async function shopAttention(
  parts: AttentionParts,
  shop: ShopRef,
  mayChangeAccount: boolean,
): Promise<AttentionItem[]> {
  const { store, accounts, partsOf } = parts;
  const items: AttentionItem[] = [];
  const { account } = await accounts.reachFacts(shop);
  if (account === undefined) {
    const held = await heldOrders(store, shop);
    items.push({
      kind: 'no_account',
      why: `This store earns on no loyalty account yet: its orders are kept, and no points are sent.${held > 0 ? ` ${counted(held, 'order')} ${isAre(held)} held until it does.` : ''}`,
      fix: 'Set up your loyalty account: its API key and brand id, from your loyalty service’s panel.',
      ...(held > 0 ? { count: held } : {}),
    });
  } else {
    const [record, runtime] = await Promise.all([accounts.get(account), accounts.runtime(account)]);
    const whose = mayChangeAccount
      ? 'Enter the API key and brand id from your loyalty service’s panel again.'
      : 'Ask the bridge’s operator, who set up the loyalty account, to check its credentials.';
    const cause = runtime?.authPause.paused ? 'key_refused' : causeOfCheck(record?.check);
    if (cause === 'key_refused')
      items.push({
        kind: 'credentials_refused',
        why: 'The loyalty service refuses this account’s credentials: no points are sent until they are right.',
        fix: whose,
      });
    else if (cause === 'address_refused')
      items.push({
        kind: 'address_refused',
        // Its key was never tried: the address is what to change, not the key.
        why: `The loyalty account’s address is not a public internet address${mayChangeAccount && record?.check?.detail ? ` (${record.check.detail})` : ''}, so the app sends nothing there: no points are sent until it is changed.`,
        fix: mayChangeAccount
          ? 'Enter your loyalty service’s public https address in Set up (your API key and brand id stay as they are).'
          : 'Ask the bridge’s operator to give the loyalty account the service’s public address.',
      });
    else if (cause === 'unreachable')
      items.push({
        kind: 'service_unreachable',
        // The check's own words name the address and what came back: the merchant's to read only on their own account.
        why: `The loyalty service could not be reached when the account was last checked${mayChangeAccount && record?.check?.detail ? ` (${record.check.detail})` : ''}.`,
        fix: mayChangeAccount
          ? 'Check the service’s address in your account settings.'
          : 'Ask the bridge’s operator to check the service’s address.',
      });
    // A trial: orders earn on the sandbox, where no customer sees points. Not live until the merchant's own account.
    if (record?.onBridgeSandbox)
      items.push({
        kind: 'trial',
        why: 'You are trying the app on the sandbox: orders earn points there, but they are not real, and your customers see none.',
        fix: mayChangeAccount
          ? 'When you are ready, open Set up and enter your loyalty service’s address, API key and brand id, then save: from then on your orders earn real points.'
          : 'When you are ready, ask the bridge’s operator to move this store to your loyalty account: from then on your orders earn real points.',
      });
    const since = runtime && parts.spentSince?.(runtime);
    const now = (parts.now?.() ?? new Date()).getTime();
    if (since !== undefined && now - since >= (parts.spentLongMs ?? BUDGET_SPENT_LONG_MS))
      items.push({
        kind: 'budget_spent',
        why: `Your loyalty account has used every call the service allows it a minute for ${lastedWords(now - since)}: your orders wait their turn, and their points come late.`,
        fix: mayChangeAccount
          ? 'Nothing is lost: orders go as calls free up. If your loyalty service allows your account more calls a minute, enter that number in Set up.'
          : 'Nothing is lost: orders go as calls free up. If this goes on, ask the bridge’s operator about the account’s calls a minute.',
      });
    // The account's own settings: the merchant's to read and fix where the account is theirs, else the operator's.
    for (const paused of runtime?.pausedRules ?? [])
      items.push({
        kind: 'rule_paused',
        why: mayChangeAccount
          ? `The rule for ${paused.rule} is off: its pattern (${paused.key}) ${paused.why}. Until it is fixed, that rule does nothing for your orders.`
          : `The rule for ${paused.rule} is off: its setting cannot run on this bridge. Until it is fixed, that rule does nothing for your orders.`,
        fix: mayChangeAccount
          ? `Write ${paused.key} again in your program settings, as a pattern without lookaround or backreferences.`
          : 'Ask the bridge’s operator, who set up the loyalty account, to fix its settings.',
      });
  }

  const health = await store.getRecord(HEALTH_KIND, reconciliationId(shop.platform, shop.shop));
  if (health?.error)
    items.push({
      kind: 'no_access',
      why: `The bridge could not read this store’s orders: ${health.error}`,
      fix: 'Open the app from your store’s admin, so that it is granted access again.',
    });
  if (health?.scopes && !health.scopes.includes(NEEDED_SCOPE))
    items.push({
      kind: 'missing_scope',
      why: `The app is not allowed to read orders (${NEEDED_SCOPE}): resyncs and checks of orders fail.`,
      fix: 'Open the app from your store’s admin and accept the access it asks for.',
    });
  for (const problem of health?.problems ?? [])
    items.push({ kind: `subscription_${problem.kind}`, why: `${problem.topic}: ${problem.detail}`, fix: problem.fix });

  const storefront = await storefrontTrouble(parts, shop);
  if (storefront) items.push(storefront);

  // Orders skipped for a reason only the shop's platform gives (its customers' details withheld), in its words.
  for (const [reason, { why, fix }] of Object.entries(partsOf(shop.platform)?.notes?.skipReasons ?? {})) {
    const { total } = await store.listOrders({ page: 1, limit: 1, platform: shop.platform, shop: shop.shop, reason });
    if (total > 0) items.push({ kind: reason, why, fix, count: total });
  }

  const letters = (await store.listDeadLetters()).filter((letter) => isLetterOfShop(letter, shop));
  if (letters.length > 0) {
    // Named as the store shows them (#1001), the newest first; the rest counted.
    const named = await lettersOrdersNamed(store, [...letters].reverse());
    items.push({
      kind: 'dead_letters',
      why: `${letters.length === 1 ? 'An order or delivery' : `${letters.length} orders or deliveries`} of this store could not go on${named}: no points were sent for them. The Orders page says why for each.`,
      fix: items.some((item) => STOPS_POINTS.has(item.kind))
        ? 'Put right what this page says above first, then send each again from the Orders page.'
        : 'Fix what each says on the Orders page, then send it again.',
      count: letters.length,
    });
  }
  return items;
}

/**
 * A storefront the merchant turned on that the install can no longer serve: a scope taken away after it was turned on
 * (a release of the app without write_app_proxy, read_customers revoked), which no switch says. It stays on, so that
 * it serves again once the scope is back; the platform is asked as the switch asks it, and not being able to ask
 * (the platform down) is no item.
 */
async function storefrontTrouble(parts: AttentionParts, shop: ShopRef): Promise<AttentionItem | undefined> {
  const storefront = parts.partsOf(shop.platform)?.storefront;
  if (!storefront || !(await storefrontOn(parts.store, shop.platform, shop.shop))) return undefined;
  const ready = await storefront.readiness(shop.shop).catch(() => ({ ready: true }) as const);
  if (ready.ready) return undefined;
  return {
    kind: 'storefront_not_ready',
    why: `Your storefront is on, but customers cannot see their points now: ${ready.why}.`,
    // An optional scope is asked for only as the switch turns on: turning it off and on again asks.
    fix: 'Do what this says; where it is access you approve as you turn the storefront on, turn it off and on again in Set up. It shows points again once that is done.',
  };
}

/** The shop's orders with work pending: held while it earns on no account. */
async function heldOrders(
  store: OrderWorkRole & OperatorQueries & DeadLetterRole & RecordRole,
  shop: ShopRef,
): Promise<number> {
  const counts = (await store.laneCountsByShop()).find(
    (each) => each.platform === shop.platform && each.shop === shop.shop,
  );
  return counts ? counts.lanes.live.waiting + counts.lanes.backfill.waiting : 0;
}

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
