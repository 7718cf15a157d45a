// Orders as the admin API answers them, each with `words` beside its codes (src/core/order-words.ts): the
// sentence and fix that the dashboard and the merchant's page show. Pending says until when, from the rules of
// the account the order earns on; a call held by a dead letter is told too.
import type { Accounts } from './accounts.ts';
import { approvalDueAt } from './lifecycle.ts';
import type { OrderRecord } from './order-record.ts';
import type { Fact } from './order-event.ts';
import type { CallRecord } from './order-record.ts';
import {
  CALL_WORDS,
  FACT_WORDS,
  OUTCOME_WORDS,
  orderLabel,
  orderLine,
  orderTone,
  orderWords,
  serviceWords,
  type Audience,
  type OrderTone,
  type OrderWords,
} from './order-words.ts';
import type { PlatformParts } from './platform-module.ts';
import type { OrderWorkRole } from './store/ledger-store.ts';

export interface WordsParts {
  store: Pick<OrderWorkRole, 'getOrder'>;
  accounts: Pick<Accounts, 'forShop' | 'runtime'>;
  partsOf: (platform: string) => Pick<PlatformParts, 'notes'> | undefined;
  audience: Audience;
  /** The merchant may change their program; false on an account the operator set up. */
  mayChangeProgram?: boolean;
}

type Wordable = { key: string; platform: string; shop: string; state?: string; reason?: string | undefined };

/** The words of one order's record: its target, its account's rules, its held calls. */
export async function wordsOfRecord(
  { accounts, partsOf, audience, mayChangeProgram }: Omit<WordsParts, 'store'>,
  record: OrderRecord,
): Promise<OrderWords> {
  const id = record.upstream.account ?? (await accounts.forShop(record.platform, record.shop));
  const policy = id === undefined ? undefined : (await accounts.runtime(id))?.policy;
  return orderWords(record.target ?? { state: 'new' }, {
    audience,
    mayChangeProgram,
    policy,
    pendingUntil: policy ? approvalDueAt(record, policy) : undefined,
    platformReasons: partsOf(record.platform)?.notes?.skipReasons,
    held: Object.keys(record.work.held),
  });
}

/** An order's status as a row shows it: one short line, its label for a badge, and the badge's tone. */
interface OrderStatus {
  line: string;
  label: string;
  tone: OrderTone;
}

function statusOf(target: { state: string; reason?: string | undefined }, record: OrderRecord | undefined) {
  const held = record ? Object.keys(record.work.held) : [];
  // Failed and waiting to be tried again: no call of it is done, whatever its state plans.
  const retrying = Boolean(record?.work.retryAt && record.work.lastError);
  const status: OrderStatus = {
    line: orderLine(target, held),
    label: orderLabel(target, held),
    tone: orderTone(target, held, retrying),
  };
  return status;
}

/**
 * Each order of a listing with its words, its status in one short line (`line`) and as a badge (`label`,
 * `tone`): from its record where the ledger keeps one, else from its summary.
 */
export async function withWords<T extends Wordable>(
  given: WordsParts,
  orders: T[],
): Promise<Array<T & { words: OrderWords } & OrderStatus>> {
  // A page of orders is mostly one shop's, on one account: each is looked up once.
  const shops = new Map<string, Promise<string | undefined>>();
  const runtimes = new Map<string, ReturnType<WordsParts['accounts']['runtime']>>();
  const once = <V>(map: Map<string, V>, key: string, make: () => V) =>
    map.get(key) ?? (map.set(key, make()), map.get(key)!);
  const parts: WordsParts = {
    ...given,
    accounts: {
      forShop: (platform, shop) => once(shops, `${platform}\n${shop}`, () => given.accounts.forShop(platform, shop)),
      runtime: (id) => once(runtimes, id, () => given.accounts.runtime(id)),
    },
  };
  return Promise.all(
    orders.map(async (order) => {
      const record = await parts.store.getOrder(order.key);
      const words = record
        ? await wordsOfRecord(parts, record)
        : orderWords(
            { state: order.state ?? 'new', reason: order.reason },
            {
              audience: parts.audience,
              mayChangeProgram: parts.mayChangeProgram,
              platformReasons: parts.partsOf(order.platform)?.notes?.skipReasons,
            },
          );
      const target = record
        ? (record.target ?? { state: 'new' })
        : { state: order.state ?? 'new', reason: order.reason };
      return { ...order, words, ...statusOf(target, record) };
    }),
  );
}

/**
 * An order's detail in words beside its codes: what the store said (`factWords`), what the service holds
 * (`serviceWords`), and each call made with what it does and how it went (`words`).
 */
export function withDetailWords<
  T extends {
    facts: readonly Fact[];
    upstream: Parameters<typeof serviceWords>[0];
    calls: ReadonlyArray<Pick<CallRecord, 'operation' | 'outcome'>>;
  },
>(order: T) {
  return {
    ...order,
    factWords: order.facts.map((fact) => FACT_WORDS[fact] ?? fact),
    serviceWords: serviceWords(order.upstream),
    calls: order.calls.map((call) => ({
      ...call,
      words: {
        call: CALL_WORDS[call.operation] ?? call.operation,
        outcome: OUTCOME_WORDS[call.outcome] ?? call.outcome,
      },
    })),
  };
}
