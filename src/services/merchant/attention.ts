// What a shop's merchant must look at, and how to put it right, in plain
// words: for the merchant's own page (its Home). Each item says why
// orders may earn nothing, and the fix, which is the merchant's own where it
// can be (their loyalty account, the app's access, protected customer data)
// and the operator's where it cannot (an account the operator set up).
import type { ShopRef } from '../../accounts/account-records.ts';
import { causeOfCheck } from '../../accounts/check-cause.ts';
import type { AccountRegistry } from '../../accounts/registry.ts';
import { lastedWords, lettersOrdersNamed } from '../../core/letter-names.ts';
import { HEALTH_KIND } from '../../core/order-source.ts';
import type { PlatformParts } from '../../core/platform-module.ts';
import { reconciliationId } from '../../core/reconciler.ts';
import type { OrderWorkRole, OperatorQueries, DeadLetterRole, RecordRole } from '../../core/store/ledger-store.ts';
import { storefrontOn } from '../../core/storefront/storefront-switch.ts';
import { BUDGET_SPENT_LONG_MS } from '../../core/worker/account-budgets.ts';
import { counted, isAre } from '../../counted.ts';
import { isLetterOfShop } from './shop-words.ts';

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
  const { store, accounts } = parts;
  const { account } = await accounts.reachFacts(shop);
  const items: AttentionItem[] =
    account === undefined ? [await noAccount(store, shop)] : await accountItems(parts, account, mayChangeAccount);
  items.push(...(await healthItems(store, shop)));
  const storefront = await storefrontTrouble(parts, shop);
  if (storefront) items.push(storefront);
  items.push(...(await skippedItems(parts, shop)));
  const letters = await lettersItem(store, shop, items);
  if (letters) items.push(letters);
  return items;
}

/** The shop earns on no account: its orders are kept, and held. */
async function noAccount(store: AttentionParts['store'], shop: ShopRef): Promise<AttentionItem> {
  const held = await heldOrders(store, shop);
  return {
    kind: 'no_account',
    why: `This store earns on no loyalty account yet: its orders are kept, and no points are sent.${held > 0 ? ` ${counted(held, 'order')} ${isAre(held)} held until it does.` : ''}`,
    fix: 'Set up your loyalty account: its API key and brand id, from your loyalty service’s panel.',
    ...(held > 0 ? { count: held } : {}),
  };
}

/** What is wrong with the account the shop earns on: its credentials or address, a trial, its budget, its rules. */
async function accountItems(parts: AttentionParts, account: string, mayChangeAccount: boolean) {
  const { accounts } = parts;
  const [record, runtime] = await Promise.all([accounts.get(account), accounts.runtime(account)]);
  const cause = runtime?.authPause.paused ? 'key_refused' : causeOfCheck(record?.check);
  // The check's own words name the address and what came back: the merchant's to read only on their own account.
  const detail = mayChangeAccount && record?.check?.detail ? ` (${record.check.detail})` : '';
  const items: AttentionItem[] = [];
  const checked = checkItem(cause, detail, mayChangeAccount);
  if (checked) items.push(checked);
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
  return items;
}

/** What the account's last check (or a refused key) says stops every call: the fix is the merchant's on its own. */
function checkItem(cause: string | undefined, detail: string, mayChangeAccount: boolean): AttentionItem | undefined {
  if (cause === 'key_refused')
    return {
      kind: 'credentials_refused',
      why: 'The loyalty service refuses this account’s credentials: no points are sent until they are right.',
      fix: mayChangeAccount
        ? 'Enter the API key and brand id from your loyalty service’s panel again.'
        : 'Ask the bridge’s operator, who set up the loyalty account, to check its credentials.',
    };
  if (cause === 'address_refused')
    return {
      kind: 'address_refused',
      // Its key was never tried: the address is what to change, not the key.
      why: `The loyalty account’s address is not a public internet address${detail}, so the app sends nothing there: no points are sent until it is changed.`,
      fix: mayChangeAccount
        ? 'Enter your loyalty service’s public https address in Set up (your API key and brand id stay as they are).'
        : 'Ask the bridge’s operator to give the loyalty account the service’s public address.',
    };
  if (cause === 'unreachable')
    return {
      kind: 'service_unreachable',
      why: `The loyalty service could not be reached when the account was last checked${detail}.`,
      fix: mayChangeAccount
        ? 'Check the service’s address in your account settings.'
        : 'Ask the bridge’s operator to check the service’s address.',
    };
  return undefined;
}

/** What the platform's last look at the store found: no access, a scope missing, its subscriptions' problems. */
async function healthItems(store: AttentionParts['store'], shop: ShopRef): Promise<AttentionItem[]> {
  const items: AttentionItem[] = [];
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
  return items;
}

/** Orders skipped for a reason only the shop's platform gives (its customers' details withheld), in its words. */
async function skippedItems({ store, partsOf }: AttentionParts, shop: ShopRef): Promise<AttentionItem[]> {
  const items: AttentionItem[] = [];
  for (const [reason, { why, fix }] of Object.entries(partsOf(shop.platform)?.notes?.skipReasons ?? {})) {
    const { total } = await store.listOrders({ page: 1, limit: 1, platform: shop.platform, shop: shop.shop, reason });
    if (total > 0) items.push({ kind: reason, why, fix, count: total });
  }
  return items;
}

/** The shop's dead letters as one item; the fix points at what stops every call first, if the items above say so. */
async function lettersItem(
  store: AttentionParts['store'],
  shop: ShopRef,
  above: readonly AttentionItem[],
): Promise<AttentionItem | undefined> {
  const letters = (await store.listDeadLetters()).filter((letter) => isLetterOfShop(letter, shop));
  if (letters.length === 0) return undefined;
  // Named as the store shows them (#1001), the newest first; the rest counted.
  const named = await lettersOrdersNamed(store, [...letters].reverse());
  return {
    kind: 'dead_letters',
    why: `${letters.length === 1 ? 'An order or delivery' : `${letters.length} orders or deliveries`} of this store could not go on${named}: no points were sent for them. The Orders page says why for each.`,
    fix: above.some((item) => STOPS_POINTS.has(item.kind))
      ? 'Put right what this page says above first, then send each again from the Orders page.'
      : 'Fix what each says on the Orders page, then send it again.',
    count: letters.length,
  };
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
