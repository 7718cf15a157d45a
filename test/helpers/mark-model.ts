// The cover checks' marks (reward-check, src/core/storefront/cover-checks.ts) in test/property/store-fence-model.test.ts,
// beside their fences: before an earning's cancel is sent its customer's holder is marked with the cancel's token,
// and only that cancel's own check (after it landed), or CANCEL_LANDS_MS, lets the mark go. What a user relies on:
// - a mark is never taken away while a cancel whose mark was answered is on its way: no check before its own (the
//   sweep's, another's), no erasure; it holds that cancel, by its token and when it was marked, under its holder;
// - a cancel's own check that answered took its token out of the mark for good;
// - a sweep that ran with no write failing takes the mark of a holder with no cancel on its way (all landed and
//   checked, or marked CANCEL_LANDS_MS before the sweep);
// - a customer's erasure leaves no mark of a holder it removed, save one with a cancel on its way (kept for that
//   cancel's check: the mark holds only ids, and its cancel's own check or the sweep after CANCEL_LANDS_MS takes it);
// - a code the sweeper gave back (marked, then made the customer's) keeps its holder marked until a check that saw
//   it answered, or the holder is gone: its own check may fail (then the sweep checks it);
// - (lowdb) a store reopened from disk holds the marks the last reads saw.
import { expect } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { HOLDER_KIND, type Holder } from '../../src/core/storefront/reservations.ts';
import type { CoverChecks } from '../../src/core/storefront/cover-checks.ts';
import { CANCEL_LANDS_MS, CHECK_KIND, type CoverCheck } from '../../src/core/storefront/cover-marks.ts';
import { HOLDERS, holderOf, type FenceModel, type FenceOp } from './fence-model.ts';
import type { Faults } from './store-model-harness.ts';
import { raw } from './raw-records.ts';

/** What of a run (fence-wiring.ts, Context) the marks' operations and checks use. */
interface Context {
  store: LedgerStore;
  other: LedgerStore;
  model: Pick<FenceModel, 'clock' | 'next'>;
  marks: MarkModel;
  faults: Faults;
  checks: CoverChecks;
}

/**
 * A cancel of one of the holder's earnings: marked (`answered` once cancelling answered its token), then its check.
 * Or a code the sweeper gave back: marked (CoverChecks.mark), then its check in the same step.
 */
export interface Cancel {
  by: 'cancel' | 'give-back';
  holder: number;
  at: number;
  token?: string | undefined;
  answered: boolean;
  /** Its own check: not yet, begun, or answered. */
  check: 'none' | 'begun' | 'answered';
}

export class MarkModel {
  readonly cancels: Cancel[] = [];
  /** Codes given back (the holder's `givenBack`, each a number), `open` until a check that saw it answered. */
  readonly giveBacks: Array<{ holder: number; n: number; open: boolean }> = [];
  /** Holders a cancel or a cancel's own check reached this round. */
  readonly #touched = new Set<number>();
  #sweeps: Array<{ at: number; sure: boolean }> = [];
  #struck = 0;
  /** The marks read once the last round was over, for the store reopened. */
  readonly last = new Map<number, CoverCheck | undefined>();
  readonly stats = {
    cancels: 0,
    ownChecks: 0,
    keptOnTheirWay: 0,
    swept: 0,
    erased: 0,
    keptByErasure: 0,
    givenBack: 0,
    givenBackChecked: 0,
  };

  startRound(struck: number): void {
    this.#touched.clear();
    this.#sweeps = [];
    this.#struck = struck;
  }

  touched(holder: number): boolean {
    return this.#touched.has(holder);
  }

  cancelling(holder: number, at: number, by: Cancel['by'] = 'cancel'): Cancel {
    this.#touched.add(holder);
    const cancel: Cancel = { by, holder, at, answered: false, check: 'none' };
    this.cancels.push(cancel);
    return cancel;
  }

  /** A cancel marked in an earlier round whose own check has not begun: the `pick`th, as many as there are. */
  landing(pick: number): Cancel | undefined {
    const ready = this.cancels.filter((each) => each.by === 'cancel' && each.answered && each.check === 'none');
    const cancel = ready.length === 0 ? undefined : ready[pick % ready.length]!;
    if (cancel) {
      cancel.check = 'begun';
      this.#touched.add(cancel.holder);
    }
    return cancel;
  }

  sweeping(at: number): { at: number; sure: boolean } {
    const sweep = { at, sure: false };
    this.#sweeps.push(sweep);
    return sweep;
  }

  /** A check of the holder answered, having read it as `seen`: the codes given back it saw are checked. */
  checked(holder: number, seen: CheckSeen): void {
    for (const each of this.giveBacks)
      if (each.open && each.holder === holder && (seen.gone || seen.givenBack.has(each.n))) {
        each.open = false;
        this.stats.givenBackChecked++;
      }
  }

  /** Cancels on their way at `now`: marked (answered), their own check not begun, within CANCEL_LANDS_MS. */
  onTheirWay(holder: number, now: number): Cancel[] {
    return this.cancels.filter(
      (each) => each.holder === holder && each.answered && each.check === 'none' && now - each.at < CANCEL_LANDS_MS,
    );
  }

  /** A sweep of this round that answered with no write failing, after which the holder's mark must be gone. */
  swept(holder: number, struck: number): boolean {
    if (struck !== this.#struck || this.#touched.has(holder)) return false;
    const landed = (sweep: { at: number }) =>
      this.cancels.every(
        (each) => each.holder !== holder || each.check === 'answered' || sweep.at - each.at >= CANCEL_LANDS_MS,
      );
    return this.#sweeps.some((sweep) => sweep.sure && landed(sweep));
  }
}

/** What a check read of its holder (fence-wiring.ts watches it): the codes given back it saw, or no holder. */
export interface CheckSeen {
  givenBack: Set<number>;
  gone: boolean;
}

/** A holder as the model's give-backs write it: each change that made a code the customer's again, by number. */
export type GivenBackHolder = Holder & { givenBack?: number[] };

/** A cancel's mark (CoverChecks.cancelling), a cancel's own check once it landed, or a code given back. */
export function startMark(op: Extract<FenceOp, { kind: 'cancel' | 'landed' | 'giveBack' }>, context: Context) {
  const { marks, model, checks } = context;
  if (op.kind === 'giveBack') return giveBack(op, context);
  if (op.kind === 'cancel') {
    const { account, email } = holderOf(op.holder);
    const cancel = marks.cancelling(op.holder, model.clock);
    return checks.cancelling(account, { email }).then(
      (token) => {
        Object.assign(cancel, { token, answered: true });
        marks.stats.cancels++;
      },
      () => undefined,
    );
  }
  const cancel = marks.landing(op.pick);
  if (!cancel) return undefined;
  const { account, id } = holderOf(cancel.holder);
  return checks.check({ id: account, pool: alone(account) } as AccountRuntime, id, cancel.token).then(
    () => {
      cancel.check = 'answered';
      marks.stats.ownChecks++;
    },
    () => undefined,
  );
}

/**
 * As code-sweeper.ts gives a code back: the holder marked (a failure stops there), the change that makes the code
 * theirs (one that failed may have landed: promised nothing), then the holder's check, with the mark's token, unless
 * the bridge stopped before it. The change finds the holder as the sweeper's finds the code's reservation, or none.
 */
async function giveBack(
  { holder, stops }: Extract<FenceOp, { kind: 'giveBack' }>,
  { store, marks, model, checks }: Context,
): Promise<void> {
  const { account, id } = holderOf(holder);
  const entry = marks.cancelling(holder, model.clock, 'give-back');
  try {
    const token = await checks.mark(account, id);
    Object.assign(entry, { token, answered: true, check: 'begun' });
    const n = model.next();
    const { changed } = await store.changeRecord(raw<GivenBackHolder>(HOLDER_KIND.kind), id, (current) =>
      current ? { put: { ...current, givenBack: [...(current.givenBack ?? []), n] } } : undefined,
    );
    if (changed) marks.giveBacks.push({ holder, n, open: true });
    if (changed) marks.stats.givenBack++;
    if (stops) return;
    await checks.check({ id: account, pool: alone(account) } as AccountRuntime, id, token);
    entry.check = 'answered';
  } catch {
    // As the sweeper: the code is looked at again on its next pass.
  }
}

/** Once a round is over: each holder's mark as the model allows, read alike by the other bridge. */
export async function checkMarks({ store, other, model, marks, faults }: Context, when: string): Promise<void> {
  // Listed, as the sweep finds them, once for all the holders (and by the other bridge alike).
  const listed = await store.listRecords(CHECK_KIND);
  const byId = (list: typeof listed) => [...list].sort((a, b) => a.id.localeCompare(b.id));
  if (other !== store)
    expect(byId(await other.listRecords(CHECK_KIND)), `${when}: the other bridge`).toEqual(byId(listed));
  const all = new Map(listed.map(({ id, value }) => [id, value]));
  expect(listed.length, `${when}: marks under no holder's id`).toBe(
    [...Array(HOLDERS).keys()].filter((index) => all.has(holderOf(index).id)).length,
  );
  for (let index = 0; index < HOLDERS; index++) {
    const { id, account } = holderOf(index);
    const mark = all.get(id);
    const before = marks.last.get(index);
    marks.last.set(index, mark);
    const entries = mark?.cancels ?? [];
    if (mark) {
      expect([mark.holder, mark.account], `${when}: holder ${index}'s mark names another`).toEqual([id, account]);
      const marked = new Set(marks.cancels.filter((each) => each.holder === index).map((each) => each.at));
      for (const entry of entries)
        expect(marked, `${when}: holder ${index}'s mark holds a cancel never marked`).toContain(Date.parse(entry.at));
    }
    for (const cancel of marks.onTheirWay(index, model.clock)) {
      expect(entries, `${when}: holder ${index}'s mark lost a cancel on its way`).toContainEqual({
        id: cancel.token,
        at: new Date(cancel.at).toISOString(),
      });
      marks.stats.keptOnTheirWay++;
    }
    for (const cancel of marks.cancels.filter((each) => each.holder === index && each.check === 'answered'))
      expect(
        entries.map((entry) => entry.id),
        `${when}: holder ${index} holds a cancel checked`,
      ).not.toContain(cancel.token);
    const open = marks.giveBacks.filter((each) => each.open && each.holder === index);
    if (open.length > 0 && (await store.getRecord(HOLDER_KIND, id)) !== undefined)
      expect(mark, `${when}: holder ${index} was given a code back no check saw, and its mark is gone`).toBeDefined();
    if (marks.swept(index, faults.struck)) {
      expect(mark, `${when}: a sweep left holder ${index}'s mark with no cancel on its way`).toBeUndefined();
      if (before) marks.stats.swept++;
    }
  }
}

/** An erased holder's mark (checkRound: the erasure answered, the holder is gone, nothing wrote it back since). */
export function expectErasedMark(context: Context, index: number, at: number, when: string): void {
  const mark = context.marks.last.get(index);
  if (mark === undefined) return void context.marks.stats.erased++;
  const onItsWay = (mark.cancels ?? []).some((each) => at - Date.parse(each.at) < CANCEL_LANDS_MS);
  expect(onItsWay, `${when}: holder ${index}'s mark outlived its customer's erasure`).toBe(true);
  context.marks.stats.keptByErasure++;
}
