// How test/property/store-fence-model.test.ts wires the code under test to a run's store: cover checks (their fence
// writes told to the model as they start, whichever check makes them: a check of its own, a cancel's, the sweep's)
// and the customer's erasure of their reservations, as composition wires them, with no platform behind; a Redeem's
// reservation as reward-codes.ts makes it; and the store model's own operations that run at once with the fences'.
import type { RecordType } from '../../src/core/store/roles/record-types.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { expect } from 'vitest';
import { alone, type Accounts, type AccountRuntime } from '../../src/core/accounts.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { CoverChecks, type CoverCheckParts } from '../../src/core/storefront/cover-checks.ts';
import {
  FENCE_KEPT_MS,
  FENCE_KIND,
  HOLDER_KIND,
  fencedOut,
  type CheckFence,
} from '../../src/core/storefront/reservations.ts';
import { RewardPrivacy } from '../../src/core/storefront/reward-privacy.ts';
import { createLogger } from '../../src/logger.ts';
import {
  FENCE_ACCOUNTS,
  FENCE_CUSTOMERS,
  FENCE_SHOPS,
  HOLDERS,
  holderOf,
  type FenceModel,
  type FenceOp,
} from './fence-model.ts';
import type { CheckSeen, GivenBackHolder, MarkModel } from './mark-model.ts';
import { orderEvent } from './order-events.ts';
import type { Faults, Harness } from './store-model-harness.ts';
import { raw } from './raw-records.ts';

const logger = createLogger({ level: 'silent' });
/** What the runs of the file met, for its summary. */
export const stats = {
  runs: 0,
  checks: 0,
  dropped: 0,
  erasures: 0,
  fencedByAge: 0,
  fencedByChange: 0,
  keptQuiet: 0,
  holdersGone: 0,
};

export interface Context {
  store: LedgerStore;
  /** Another bridge on the same ledger (PostgreSQL); the same store for lowdb, which one bridge holds. */
  other: LedgerStore;
  harness: Harness;
  model: FenceModel;
  marks: MarkModel;
  faults: Faults;
  checks: CoverChecks;
  privacy: RewardPrivacy;
  /** What the model is told of each fence write once it answered: awaited with the round. */
  pending: Array<Promise<unknown>>;
  /** Fences written under an id no holder of the model has. */
  strays: string[];
  erasures: Array<{ customer: number; shop: string | undefined; at: number; sure: boolean }>;
}

const holderIndex = new Map([...Array(HOLDERS).keys()].map((index) => [holderOf(index).id, index]));

/** Each fence a check writes, told to the model as its write starts (the code makes its token), and as it answers. */
function tell(
  context: Pick<Context, 'model' | 'pending' | 'strays'>,
  id: string,
  fence: CheckFence,
  landed: Promise<unknown>,
) {
  const index = holderIndex.get(id);
  if (index === undefined) return void context.strays.push(id);
  const action = context.model.wrote(index, fence.id, Date.parse(fence.at));
  context.pending.push(
    landed.then(
      () => context.model.landed(index, action),
      () => undefined,
    ),
  );
}

/** The check under way (its holder's reads), through every await of it. */
const watching = new AsyncLocalStorage<CheckSeen>();

/** Cover checks, each telling the model what it read of its holder once it answered (the sweep's too). */
class WatchedChecks extends CoverChecks {
  readonly #marks: MarkModel;

  constructor(parts: CoverCheckParts, marks: MarkModel) {
    super(parts);
    this.#marks = marks;
  }

  override async check(account: AccountRuntime, holder: string, cancel?: string): Promise<'covered' | 'later'> {
    const seen: CheckSeen = { givenBack: new Set(), gone: false };
    const answer = await watching.run(seen, () => super.check(account, holder, cancel));
    const index = holderIndex.get(holder);
    if (index !== undefined) this.#marks.checked(index, seen);
    return answer;
  }
}

/** The store as cover checks see it, telling of each fence as its write starts, and of each read of a holder. */
function telling(store: LedgerStore, context: Pick<Context, 'model' | 'pending' | 'strays'>): LedgerStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'putRecord')
        return (kind: RecordType<unknown>, id: string, value: unknown) => {
          const landed = target.putRecord(kind as never, id, value);
          if (kind.kind === FENCE_KIND.kind) tell(context, id, value as CheckFence, landed);
          return landed;
        };
      if (name === 'getRecord')
        return async (kind: RecordType<unknown>, id: string) => {
          const seen = watching.getStore();
          const value = (await target.getRecord(kind, id)) as GivenBackHolder | undefined;
          if (seen && kind.kind === HOLDER_KIND.kind) {
            if (value === undefined) seen.gone = true;
            for (const each of value?.givenBack ?? []) seen.givenBack.add(each);
          }
          return value;
        };
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export function wire(store: LedgerStore, context: Pick<Context, 'model' | 'marks' | 'pending' | 'strays'>) {
  const { model } = context;
  const now = () => new Date(model.clock);
  const checks = new WatchedChecks(
    {
      store: telling(store, context),
      codesOf: () => undefined,
      // The model's holders hold no unused code: a check writes its fence, reads the holder, and is done.
      reader: { pointsNow: async () => ({ ok: false }) } as unknown as CoverCheckParts['reader'],
      codes: { removedUnused: async () => undefined, end: async () => undefined },
      logger,
      now,
    },
    context.marks,
  );
  const accounts = FENCE_ACCOUNTS.map((id) => ({ id, pool: alone(id) }) as AccountRuntime);
  const privacy = new RewardPrivacy({
    store,
    accounts: { all: async () => accounts, runtime: async (id) => accounts.find((each) => each.id === id) },
    codesOf: () => undefined,
    logger,
    now,
    settleMs: 0,
  });
  return { checks, privacy };
}

export const sweeperAccounts: Pick<Accounts, 'runtime'> = {
  runtime: async (id) => ({ id, pool: alone(id) }) as AccountRuntime,
};

/** The store model's own operations, at once with the fences'. */
export function startOther(op: FenceOp, { store, harness, model, faults }: Context): Promise<unknown> | undefined {
  switch (op.kind) {
    case 'count':
      return store
        .changeRecord(raw<{ count: number }>('migration'), 'fence-counter', (current) => ({
          put: { count: (current?.count ?? 0) + 1 },
        }))
        .then(
          () => void model.counter.sure++,
          () => void model.counter.maybe++,
        );
    case 'fold': {
      const seq = model.next();
      const customer = { name: 'Fence Customer', email: FENCE_CUSTOMERS[op.customer]!, mobile: null };
      const events = [
        orderEvent({ orderId: String(7_000 + seq), shop: FENCE_SHOPS[seq % 2]!, facts: ['placed'], customer }),
      ];
      const receivedAt = harness.now().toISOString();
      return (async () => {
        await store.accept({ key: `fence-delivery-${seq}`, aliases: [], receivedAt, events, retry: null });
        const claimed = await store.claimInbox('fence-intake', 4, harness.leaseMs);
        await store.commitIntake(claimed.map((entry) => ({ entryKey: entry.key, events: entry.events ?? [] })));
      })().catch(() => undefined);
    }
    case 'settle':
      return harness.settle().catch(() => undefined);
    case 'faults':
      faults.arm(op.count, op.code);
      return undefined;
    case 'tick':
      model.clock += op.ms;
      harness.tick(op.ms);
      return undefined;
    default:
      throw new Error(`not an operation of the model: ${op.kind}`);
  }
}

/** A Redeem's reservation on its noted read, as reward-codes.ts makes it: the holder changed, then fencedOut. */
export function reserve(
  op: Extract<FenceOp, { kind: 'reserve' }>,
  { store, model }: Context,
): Promise<void> | undefined {
  const index = model.pickNote(op.pick);
  if (index === undefined) return undefined;
  const note = model.notes.get(index)!;
  note.taken = true;
  model.reserving(index);
  const { account, email, id } = holderOf(index);
  // As #reserve: the clock read as it starts (the reservation's times), and again once the fence is read.
  const now = model.clock;
  const changedBefore = note.changed;
  const reservation = {
    id: `reservation-${model.next()}`,
    platform: 'testshop',
    shop: FENCE_SHOPS[op.shop]!,
    customerId: `customer-${email}`,
    rewardId: 'reward',
    points: 100,
    benefit: { kind: 'amount_off' as const, amount: '5.00' },
    code: `LB-FENCE${model.round}`,
    state: 'redeemed' as const,
    expiresAt: new Date(now + 86_400_000).toISOString(),
    createdAt: new Date(now).toISOString(),
  };
  return (async () => {
    const written = await store
      .changeRecord(HOLDER_KIND, id, (current) => ({
        put: {
          ...current,
          account,
          customer: { email },
          reservations: [...(current?.reservations ?? []), reservation],
        },
      }))
      .then(
        () => true,
        () => false,
      );
    const clock = () => model.clock;
    const fenced = written
      ? await fencedOut(store, id, { fence: note.noted, readStartedAt: note.startedAt }, clock).catch(() => undefined)
      : undefined;
    model.notes.delete(index);
    if (fenced === undefined) return;
    if (now - note.startedAt >= FENCE_KEPT_MS) {
      expect(fenced, `a reservation on a read ${now - note.startedAt} ms old was not fenced out`).toBe(true);
      stats.fencedByAge++;
    } else if (changedBefore && !note.erased) {
      expect(fenced, 'a check wrote a new fence after the Redeem noted it, yet its reservation stands').toBe(true);
      stats.fencedByChange++;
    } else if (note.quiet && model.clock - note.startedAt < FENCE_KEPT_MS) {
      expect(fenced, 'nothing reached the fence since the Redeem noted it, yet its reservation let go').toBe(false);
      stats.keptQuiet++;
    }
  })();
}

/** A customer's erasure as Privacy.eraseCustomer makes it: what is kept of them (their reservations), then the ledger. */
export function erase(op: Extract<FenceOp, { kind: 'erase' }>, context: Context): Promise<void> {
  const shop = op.shop === undefined ? undefined : FENCE_SHOPS[op.shop];
  const match = {
    emails: [FENCE_CUSTOMERS[op.customer]!],
    phones: [],
    orderIds: [],
    ...(shop === undefined ? {} : { platform: 'testshop', shop }),
  };
  context.model.erasing(op.customer);
  const erasure = { customer: op.customer, shop, at: context.model.clock, sure: false };
  context.erasures.push(erasure);
  const at = context.harness.now().toISOString();
  return (async () => {
    await context.privacy.eraseCustomer(match);
    await context.store.eraseCustomer(match, (delivery) => ({ about: false, redacted: delivery }), at);
    erasure.sure = true;
    stats.erasures++;
  })().catch(() => undefined);
}
