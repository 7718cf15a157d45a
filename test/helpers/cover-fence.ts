// Bridges on one ledger for the tests of a Redeem against an earning's cancel and its cover check (cover-checks.ts):
// a service whose balance reads the test holds, each bridge's own reader, RewardCodes and CoverChecks as composition
// wires them, the worker's cancel with its checks before and after, and a ledger whose next write of a kind fails.
import type { RecordType } from '../../src/core/store/roles/record-types.ts';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import { CoverChecks } from '../../src/core/storefront/cover-checks.ts';
import { CHECK_KIND } from '../../src/core/storefront/cover-marks.ts';
import { HELD, HOLDER_KIND, fenceOf, holderId } from '../../src/core/storefront/reservations.ts';
import { RewardCodes } from '../../src/core/storefront/reward-codes.ts';
import type { Reward } from '../../src/core/storefront/rewards.ts';
import { StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import type { LedgerStore, RecordKind } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';
import type { FakeCodeStore } from './fake-code-store.ts';
import { gate } from './ledger-backends.ts';

const logger = createLogger({ level: 'silent' });
export const PLATFORM = 'testshop';
export const SHOP = 'shop-1';
export const ada = { email: 'ada@x.example' };
export const ADA = holderId('acct', ada);
export const REWARD: Reward = {
  id: 'r1',
  points: 100,
  benefit: { kind: 'amount_off' as const, amount: '5.00' },
  minimumOrder: null,
  expiresInDays: 30,
  combines: false,
  on: true,
};

/**
 * The service as the bridges see it: Ada's approved points, and each balance read held while `hold` is set. `reading`
 * opens as a read reaches the service (a new gate for the next one is the test's to set).
 */
export function service(approved = 100) {
  const state = { approved, hold: undefined as Promise<void> | undefined, reading: gate() };
  const transactions = async () => {
    // The figures are taken as the read reaches the service; its answer may come after a cancel landed.
    const approved = state.approved;
    const hold = state.hold;
    state.reading.open();
    if (hold) await hold;
    const balance = { approved, redeemed: 0, pending: 0, available: approved };
    return { ok: true, data: { balance, earned: [], redeemed: [] }, message: 'Success', attempts: 1 };
  };
  const account = {
    id: 'acct',
    pool: alone('acct'),
    client: { transactions },
    policy: { pendingDays: 14 },
  } as unknown as AccountRuntime;
  return { state, account };
}

/** One bridge on the ledger: its own reader (its own cache), RewardCodes and CoverChecks, as composition wires them. */
export function bridge(ledger: LedgerStore, account: AccountRuntime, codeStore: FakeCodeStore, clock: { now: number }) {
  const codesOf = (platform: string) => (platform === PLATFORM ? codeStore.parts : undefined);
  const now = () => new Date(clock.now);
  const reader: StorefrontReader = new StorefrontReader({
    accounts: { forShop: async () => 'acct', runtime: async () => account },
    store: { customerOrders: async () => [] },
    liveFirst: () => false,
    share: 0.2,
    held: (id, customer, source, readStartedAt) => codes.held(id, customer, source, readStartedAt),
    fence: (id, customer) => fenceOf(ledger, holderId(id, customer)),
    logger,
    now: () => clock.now,
  });
  const codes = new RewardCodes({ store: ledger, codesOf, reader, logger, now });
  const checks = new CoverChecks({ store: ledger, codesOf, reader, codes, logger, now });
  const redeem = () =>
    codes.redeem({ platform: PLATFORM, shop: SHOP, customerId: 'c-ada', account, customer: ada, reward: REWARD });
  /** The worker's cancel of an earning of Ada's, with its cover check before and after (worker.ts). */
  const cancel = async (land: () => void) => {
    const mark = await checks.cancelling('acct', ada);
    land();
    reader.dropBalance('acct', ada);
    return checks.check(account, ADA, mark);
  };
  /** The sweeper's pass over the marked holders. */
  const sweep = () => checks.checkMarked({ runtime: async () => account });
  return { reader, checks, codes, redeem, cancel, sweep };
}

/** What the merchant would find: codes usable in the store, and the points Ada's reservations hold. */
export async function outcome(ledger: LedgerStore, codeStore: FakeCodeStore) {
  const holder = await ledger.getRecord(HOLDER_KIND, ADA);
  const held = (holder?.reservations ?? []).filter((each) => HELD.has(each.state)).reduce((n, r) => n + r.points, 0);
  const usable = [...codeStore.byId.values()].filter((code) => !code.removed).length;
  const marked = (await ledger.listRecords(CHECK_KIND)).length;
  return { usable, held, marked };
}

/** The ledger, whose next putRecord of a kind the test names fails (the database gone for that one write). */
export function faulty(base: LedgerStore) {
  const failing = new Set<RecordKind>();
  const putRecord = async <T>(kind: RecordType<T>, id: string, value: T) => {
    if (failing.delete(kind.kind)) throw new Error(`injected: the ledger refused a write of ${kind.kind}`);
    return base.putRecord(kind, id, value);
  };
  const ledger = new Proxy(base, {
    get: (target, name) =>
      name === 'putRecord' ? putRecord : (Reflect.get(target, name) as () => unknown).bind(target),
  });
  return { ledger, failNextPut: (kind: RecordType<unknown>) => failing.add(kind.kind) };
}
