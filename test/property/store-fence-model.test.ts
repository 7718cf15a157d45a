// Cover checks' fences (reward-fence: src/core/storefront/cover-checks.ts writes one, a Redeem notes it before its
// balance read and compares after its reservation, the sweep drops it after FENCE_DROPPED_MS) and marks (reward-check:
// a cancel's, kept while it is on its way; test/helpers/mark-model.ts says what they promise) in both ledgers, against
// a model of their own (test/helpers/fence-model.ts), while fast-check's scheduler interleaves them with the store
// model's own operations (a compare-and-set of a record, intake folding orders, settling, failed writes; the
// backends of test/helpers/store-model-harness.ts). What a user relies on:
// - after a check's write, a reader on this bridge or (PostgreSQL) another on the same ledger reads its token, or
//   one written after it; a token is read under its own holder only, with its account and its time;
// - a sweep drops a fence only once it is FENCE_DROPPED_MS old (by the clock the code is given), and a dropped fence
//   reads as none (FENCE_KEPT_MS until the fence review, ae4198c: a minute more now, for the bridges' clocks);
// - a Redeem whose reservation lands after a check started after its note wrote a new fence is fenced out, as is one
//   on a read FENCE_KEPT_MS old; one nothing reached since its note is not;
// - a customer's erasure leaves no fence of a holder it removed (the fence's id names the customer: the account and
//   a digest of their e-mail), nor a holder of theirs where it erased all their reservations;
// - (lowdb) a store reopened from disk holds the fences the last reads saw.
// An erasure between a Redeem's note and its reservation takes the fence with the holder: the reservation then
// lands on an erased customer, the erasure's own race, and the fence promises nothing for it.
//
// STORE_FENCE_RUNS (default 30) and STORE_FENCE_PG_RUNS (default 6) set the runs; STORE_FENCE_SEED and
// STORE_FENCE_PATH replay a failure. Failures found once are pinned (PINNED) and replayed on both backends.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { openPostgresStore } from '../../src/core/store/postgres/open-postgres.ts';
import { CANCEL_LANDS_MS, CHECK_KIND } from '../../src/core/storefront/cover-marks.ts';
import {
  FENCE_DROPPED_MS,
  FENCE_KEPT_MS,
  FENCE_KIND,
  HOLDER_KIND,
  fenceOf,
  type CheckFence,
} from '../../src/core/storefront/reservations.ts';
import { createLogger } from '../../src/logger.ts';
import {
  FenceModel,
  HOLDERS,
  fenceRoundsArb,
  holderOf,
  holdersOfCustomer,
  type FenceOp,
} from '../helpers/fence-model.ts';
import { erase, reserve, startOther, stats, sweeperAccounts, wire, type Context } from '../helpers/fence-wiring.ts';
import { MarkModel, checkMarks, expectErasedMark, startMark } from '../helpers/mark-model.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { Faults, lowdbHarness, postgresHarness, scheduledStore, type Harness } from '../helpers/store-model-harness.ts';
import { raw } from '../helpers/raw-records.ts';

const RUNS = Number(process.env.STORE_FENCE_RUNS ?? 30);
const PG_RUNS = Number(process.env.STORE_FENCE_PG_RUNS ?? 6);
const REPLAY =
  process.env.STORE_FENCE_SEED === undefined
    ? {}
    : { seed: Number(process.env.STORE_FENCE_SEED), path: process.env.STORE_FENCE_PATH };
const logger = createLogger({ level: 'silent' });
const markStats = { ...new MarkModel().stats };

function startFence(op: FenceOp, context: Context): Promise<unknown> | undefined {
  const { store, model } = context;
  const holder = 'holder' in op ? holderOf(op.holder) : undefined;
  switch (op.kind) {
    case 'check':
      // Its fence is told to the model as the check writes it (fence-wiring.ts), after it read the holder's mark.
      return context.checks
        .check({ id: holder!.account, pool: alone(holder!.account) } as AccountRuntime, holder!.id)
        .then(
          () => void stats.checks++,
          () => undefined,
        );
    case 'cancel':
    case 'landed':
    case 'giveBack':
      return startMark(op, context);
    case 'read':
      return fenceOf(op.other ? context.other : store, holder!.id).then(
        (value) => expect(model.mayRead(op.holder), `a Redeem read the fence ${value}`).toContain(value),
        () => undefined,
      );
    case 'note': {
      const note = model.noting(op.holder, model.next());
      if (!note) return undefined;
      return fenceOf(store, holder!.id).then(
        (value) => {
          expect(model.mayRead(op.holder), `a Redeem noted the fence ${value}`).toContain(value);
          note.noted = value;
        },
        () => void model.notes.delete(op.holder),
      );
    }
    case 'reserve':
      return reserve(op, context);
    case 'sweep': {
      const actions = [...model.sweeping(), context.marks.sweeping(model.clock)];
      return context.checks.checkMarked(sweeperAccounts).then(
        () => actions.forEach((action) => (action.sure = true)),
        () => undefined,
      );
    }
    case 'erase':
      return erase(op, context);
    default:
      return startOther(op, context);
  }
}

/** Once a round is over: each holder's fence as the model allows, read alike by the other bridge; erasures kept. */
async function checkRound(context: Context, when: string): Promise<void> {
  const { store, other, model, marks, erasures } = context;
  expect(context.strays, `${when}: fences written under no holder's id`).toEqual([]);
  const fences = new Map<number, CheckFence | undefined>();
  for (let index = 0; index < HOLDERS; index++) {
    const { id, account } = holderOf(index);
    const fence = await store.getRecord(FENCE_KIND, id);
    const value = fence?.id ?? null;
    const may = model.finals(index);
    expect(may, `${when}: holder ${index}'s fence reads ${value}`).toContain(value);
    if (fence) {
      const token = model.tokens.get(fence.id)!;
      expect(token.holder, `${when}: holder ${index} holds another holder's token`).toBe(index);
      expect(fence.account, `${when}: holder ${index}'s fence names another account`).toBe(account);
      expect(Date.parse(fence.at), `${when}: holder ${index}'s fence changed its time`).toBe(token.at);
    }
    if (other !== store) expect(await other.getRecord(FENCE_KIND, id), `${when}: the other bridge`).toEqual(fence);
    model.observed(index, value);
    fences.set(index, fence);
  }
  await checkMarks(context, when);
  for (const erasure of erasures.splice(0)) {
    if (!erasure.sure) continue;
    for (const index of holdersOfCustomer(erasure.customer)) {
      // A check, a cancel or a reservation at once with the erasure may write after it: the customer is back.
      if (model.busy(index) || marks.touched(index)) continue;
      const holder = await store.getRecord(HOLDER_KIND, holderOf(index).id);
      if (erasure.shop === undefined) expect(holder, `${when}: an erased customer's holder ${index}`).toBeUndefined();
      if (holder !== undefined) continue;
      stats.holdersGone++;
      expect(fences.get(index), `${when}: holder ${index}'s fence outlived its customer's erasure`).toBeUndefined();
      expectErasedMark(context, index, erasure.at, when);
    }
  }
  const count = (await store.getRecord(raw<{ count: number }>('migration'), 'fence-counter'))?.count ?? 0;
  expect(count, `${when}: the counter lost an add that was answered`).toBeGreaterThanOrEqual(model.counter.sure);
  expect(count, `${when}: the counter holds adds nobody made`).toBeLessThanOrEqual(
    model.counter.sure + model.counter.maybe,
  );
}

async function runFences(
  s: fc.Scheduler,
  rounds: FenceOp[][],
  open: (s: fc.Scheduler, faults: Faults) => Promise<Harness>,
  otherBridge: LedgerStore | undefined,
): Promise<void> {
  const faults = new Faults();
  const harness = await open(s, faults);
  const model = new FenceModel();
  const marks = new MarkModel();
  const { store } = harness;
  const base = { store, other: otherBridge ? scheduledStore(s, otherBridge) : store, harness, model, marks, faults };
  const context = { ...base, erasures: [], pending: [], strays: [] } as Omit<Context, 'checks' | 'privacy'> as Context;
  Object.assign(context, wire(store, context));
  try {
    for (const [index, round] of rounds.entries()) {
      model.startRound();
      marks.startRound(faults.struck);
      const started = round.map((op) => startFence(op, context)).filter((step) => step !== undefined);
      await s.waitFor(Promise.all(started));
      await s.waitFor(Promise.all(context.pending.splice(0)));
      faults.paused = true;
      await s.waitFor(checkRound(context, `after round ${index + 1}`));
      faults.paused = false;
    }
    faults.clear();
    // A new process on the same files holds the fences the last reads saw.
    const reopened = store.kind === 'lowdb' ? await harness.reopen() : undefined;
    for (let index = 0; reopened && index < HOLDERS; index++) {
      const fence = await reopened.getRecord(FENCE_KIND, holderOf(index).id);
      expect(new Set([fence?.id ?? null]), `reopened: holder ${index}'s fence`).toEqual(model.values(index));
      const mark = await reopened.getRecord(CHECK_KIND, holderOf(index).id);
      expect(mark, `reopened: holder ${index}'s mark`).toEqual(marks.last.get(index));
    }
    stats.runs++;
    stats.dropped += model.dropped;
    for (const [key, value] of Object.entries(marks.stats)) markStats[key as keyof typeof markStats] += value;
  } finally {
    faults.clear();
    await harness.close();
  }
}

// --- The properties ---------------------------------------------------------------------------------------------------

let database: TestDatabase | undefined;
let otherBridge: { store: LedgerStore; release: () => Promise<void> } | undefined;

beforeAll(async () => {
  if (!postgresAvailable()) return;
  database = await freshDatabase();
  const opened = await openPostgresStore({ url: database.url, dedupeWindowMs: 7 * 86_400_000, logger, poolSize: 2 });
  await opened.store.open();
  otherBridge = opened;
});
afterAll(async () => {
  if (otherBridge) await otherBridge.store.close().then(otherBridge.release);
  await database?.drop();
  console.log(
    `fence model: ${stats.runs} runs, ${stats.checks} checks answered, ${stats.dropped} fences swept, ` +
      `${stats.erasures} erasures, ` +
      `${stats.holdersGone} erased holders looked at, reservations fenced out by age ${stats.fencedByAge} ` +
      `and by a check ${stats.fencedByChange}, ${stats.keptQuiet} kept with nothing in between; ` +
      `marks: ${markStats.cancels} cancels marked, ${markStats.ownChecks} of their own checks, ` +
      `${markStats.keptOnTheirWay} seen kept on their way, ${markStats.swept} seen swept, ` +
      `${markStats.erased} erased and ${markStats.keptByErasure} kept by an erasure for a cancel on its way, ` +
      `${markStats.givenBack} codes given back and ${markStats.givenBackChecked} seen by a check`,
  );
});

type Open = (s: fc.Scheduler, faults: Faults) => Promise<Harness>;
const backends: Array<[string, Open, boolean, number]> = [
  ['lowdb', lowdbHarness, true, RUNS],
  ['postgres', (s, faults) => postgresHarness(database!.url, s, faults), postgresAvailable(), PG_RUNS],
];

describe.each(backends)('reward fences in the %s store against their model', (name, open, available, runs) => {
  it.skipIf(!available)(
    `keep their promises through ${runs} runs of checks, Redeems, sweeps, erasures and failed writes`,
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.scheduler(), fenceRoundsArb, (s, rounds) =>
          runFences(s, rounds, open, name === 'postgres' ? otherBridge!.store : undefined),
        ),
        { numRuns: runs, ...REPLAY },
      );
    },
    120_000,
  );
});

// --- Failures found once, replayed by every run -------------------------------------------------------------------------

const PINNED: Array<{ name: string; rounds: FenceOp[][]; seed: number }> = [
  {
    // Found by this model (both backends): a holder's fence was left by its customer's erasure, for up to
    // FENCE_KEPT_MS and the sweep after, its id the account and a digest of the erased e-mail.
    name: "a checked holder's fence across its customer's erasure",
    rounds: [[{ kind: 'check', holder: 2 }], [{ kind: 'erase', customer: 1, shop: undefined }]],
    seed: 647740386,
  },
  {
    // The same where the holder held a reservation in the one shop erased (a shop's customers/redact): it goes, and
    // its fence with it.
    name: "a Redeem's holder's fence across its customer's erasure in one shop",
    rounds: [
      [{ kind: 'note', holder: 2 }],
      [{ kind: 'reserve', pick: 0, shop: 0 }],
      [{ kind: 'check', holder: 2 }],
      [{ kind: 'erase', customer: 1, shop: 0 }],
    ],
    seed: -1949873861,
  },
  {
    // Found by this model, its rounds written by hand (the random runs had not met them in 800 lowdb runs): a
    // reservation whose write took long (here the clock moves while it waits) asked fencedOut with the clock read
    // before that write. The sweep had dropped the fence a check wrote after the Redeem's note, so the token read
    // as noted; its read was then over FENCE_KEPT_MS old, but the age compared was the one before the write.
    name: 'a reservation whose write outlasted the fence a check wrote after its note',
    rounds: [
      [{ kind: 'note', holder: 0 }],
      [{ kind: 'tick', ms: 4 * 60_000 }],
      [{ kind: 'check', holder: 0 }],
      [{ kind: 'tick', ms: 4 * 60_000 }],
      [{ kind: 'reserve', pick: 0, shop: 0 }, { kind: 'tick', ms: FENCE_KEPT_MS - 1 }, { kind: 'sweep' }],
    ],
    seed: 3,
  },
  {
    // The sweep's boundary since the fence review (ae4198c): a fence FENCE_DROPPED_MS - 1 ms old stays, one
    // FENCE_DROPPED_MS old goes (as a sweep's own check writes one for the holder a cancel marked).
    name: 'a fence a millisecond short of its drop, then at it',
    rounds: [
      [
        { kind: 'check', holder: 0 },
        { kind: 'cancel', holder: 1 },
      ],
      [{ kind: 'tick', ms: FENCE_DROPPED_MS - 1 }],
      [{ kind: 'sweep' }],
      [{ kind: 'tick', ms: 1 }],
      [{ kind: 'sweep' }],
    ],
    seed: 10,
  },
  {
    // A cancel whose own check never came keeps its mark through the sweeps until CANCEL_LANDS_MS (3e40e96), then the
    // sweep takes it; another check of the holder (the take-back's) at once with the first sweep leaves it too.
    name: "a cancel's mark a millisecond short of CANCEL_LANDS_MS, then at it",
    rounds: [
      [{ kind: 'cancel', holder: 0 }],
      [{ kind: 'tick', ms: CANCEL_LANDS_MS - 1 }],
      [{ kind: 'sweep' }, { kind: 'check', holder: 0 }],
      [{ kind: 'tick', ms: 1 }],
      [{ kind: 'sweep' }],
    ],
    seed: 13,
  },
  {
    // A customer's erasure left the mark of a holder it removed (its id names the customer, as a fence's does) until
    // the next sweep found no holder; here its cancel was marked CANCEL_LANDS_MS before, so none is on its way.
    name: "a holder's mark across its customer's erasure, its cancel long landed",
    rounds: [
      [{ kind: 'cancel', holder: 2 }],
      [{ kind: 'tick', ms: CANCEL_LANDS_MS }],
      [{ kind: 'erase', customer: 1, shop: undefined }],
    ],
    seed: 11,
  },
  {
    // The same a millisecond before: the cancel may be on its way, and its mark stays for its check.
    name: "a holder's mark across its customer's erasure, its cancel on its way",
    rounds: [
      [{ kind: 'cancel', holder: 2 }],
      [{ kind: 'tick', ms: CANCEL_LANDS_MS - 1 }],
      [{ kind: 'erase', customer: 1, shop: undefined }],
      [{ kind: 'landed', pick: 0 }],
    ],
    seed: 12,
  },
  {
    // Found by this model (random runs on lowdb, then written by hand; seed 5 fails before the fix on both
    // backends): the sweeper marked a holder before giving a code back (fd1db86), with no entry of its own; a check
    // that read the mark after it and the holder before the change found the code still held for its order, so
    // covered, and took the mark. The sweeper's bridge stopped before its own check: the code was usable again,
    // never checked. A take-back's check here; a cancel's own check below (that one fails on lowdb only).
    name: 'a code given back while another check of its holder runs, the sweeper stopping before its own',
    rounds: [
      [{ kind: 'note', holder: 0 }],
      [{ kind: 'reserve', pick: 0, shop: 0 }],
      [
        { kind: 'giveBack', holder: 0, stops: true },
        { kind: 'check', holder: 0 },
      ],
    ],
    seed: 5,
  },
  {
    name: "a code given back while a cancel's own check runs, the sweeper stopping before its own",
    rounds: [
      [
        { kind: 'note', holder: 0 },
        { kind: 'cancel', holder: 0 },
      ],
      [{ kind: 'reserve', pick: 0, shop: 0 }],
      [
        { kind: 'giveBack', holder: 0, stops: true },
        { kind: 'landed', pick: 0 },
      ],
    ],
    seed: 5,
  },
];

describe.each(backends)('reward fences in the %s store against the failures their model found', (name, open, ok) => {
  it.skipIf(!ok).each(PINNED.map((pin) => [pin.name, pin] as const))(
    'keep their promise in %s',
    async (_, { rounds, seed }) => {
      const other = () => (name === 'postgres' ? otherBridge!.store : undefined);
      await fc.assert(
        fc.asyncProperty(fc.scheduler(), fc.constant(rounds), (s, each) => runFences(s, each, open, other())),
        { seed, numRuns: 1 },
      );
    },
    30_000,
  );
});
