// How test/property/store-fence-model.test.ts wires the code under test to a run's store: cover checks (their fence
// writes told to the model as they start) and the customer's erasure of their reservations, as composition wires
// them, with no platform behind; and the store model's own operations that run at once with the fences'.
import type { Accounts, AccountRuntime } from '../../src/core/accounts.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { CoverChecks, type CoverCheckParts } from '../../src/core/storefront/cover-checks.ts';
import { FENCE_KIND, type CheckFence } from '../../src/core/storefront/reservations.ts';
import { RewardPrivacy } from '../../src/core/storefront/reward-privacy.ts';
import { createLogger } from '../../src/logger.ts';
import { FENCE_ACCOUNTS, FENCE_CUSTOMERS, FENCE_SHOPS, type FenceModel, type FenceOp } from './fence-model.ts';
import { orderEvent } from './order-events.ts';
import type { Faults, Harness } from './store-model-harness.ts';

const logger = createLogger({ level: 'silent' });

export interface Context {
  store: LedgerStore;
  /** Another bridge on the same ledger (PostgreSQL); the same store for lowdb, which one bridge holds. */
  other: LedgerStore;
  harness: Harness;
  model: FenceModel;
  faults: Faults;
  checks: CoverChecks;
  privacy: RewardPrivacy;
  /** The fence the check just started is writing (the code makes its token): set as it calls putRecord. */
  writing?: { id: string; fence: CheckFence; landed: Promise<unknown> } | undefined;
  erasures: Array<{ customer: number; shop: string | undefined; sure: boolean }>;
}

/** The store as cover checks see it, telling of each fence as its write starts. */
function telling(store: LedgerStore, context: Pick<Context, 'writing'>): LedgerStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'putRecord')
        return (kind: string, id: string, value: unknown) => {
          const landed = target.putRecord(kind as never, id, value);
          if (kind === FENCE_KIND) context.writing = { id, fence: value as CheckFence, landed };
          return landed;
        };
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export function wire(store: LedgerStore, model: FenceModel, context: Pick<Context, 'writing'>) {
  const now = () => new Date(model.clock);
  const checks = new CoverChecks({
    store: telling(store, context),
    codesOf: () => undefined,
    // The model's holders hold no unused code: a check writes its fence, reads the holder, and is done.
    reader: { pointsNow: async () => ({ ok: false }) } as unknown as CoverCheckParts['reader'],
    codes: { removedUnused: async () => undefined, end: async () => undefined },
    logger,
    now,
  });
  const accounts = FENCE_ACCOUNTS.map((id) => ({ id }) as AccountRuntime);
  const privacy = new RewardPrivacy({
    store,
    accounts: { all: async () => accounts },
    codes: { end: async () => undefined },
    codesOf: () => undefined,
    logger,
    now,
  });
  return { checks, privacy };
}

export const sweeperAccounts: Pick<Accounts, 'runtime'> = { runtime: async (id) => ({ id }) as AccountRuntime };

/** The store model's own operations, at once with the fences'. */
export function startOther(op: FenceOp, { store, harness, model, faults }: Context): Promise<unknown> | undefined {
  switch (op.kind) {
    case 'count':
      return store
        .changeRecord<{ count: number }>('migration', 'fence-counter', (current) => ({
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
