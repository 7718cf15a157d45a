// The reference model of test/property/store-fence-model.test.ts: what the ledger must hold of cover checks' fences
// (reward-fence, src/core/storefront/cover-checks.ts and reservations.ts) while writes, reads, the sweep and
// erasures run at once and writes fail. Per holder, the fence values it may hold (a token, or none); per round, the
// actions that reach each holder's fence, from which every order they may land in gives what may hold after it.
// (The checks' marks, reward-check, have their own model: mark-model.ts.)
import fc from 'fast-check';
import { CANCEL_LANDS_MS } from '../../src/core/storefront/cover-marks.ts';
import { FENCE_DROPPED_MS, FENCE_KEPT_MS, holderId } from '../../src/core/storefront/reservations.ts';
import { START } from './store-model-harness.ts';

export const FENCE_ACCOUNTS = ['A', 'B'] as const;
export const FENCE_CUSTOMERS = ['fence-0@example.com', 'fence-1@example.com'] as const;
export const FENCE_SHOPS = ['shop-1', 'shop-2'] as const;
export const HOLDERS = FENCE_ACCOUNTS.length * FENCE_CUSTOMERS.length;

/** Holder `index`: one customer on one account, with the id the code gives it. */
export function holderOf(index: number): { account: string; email: string; customer: number; id: string } {
  const account = FENCE_ACCOUNTS[index % FENCE_ACCOUNTS.length]!;
  const customer = Math.floor(index / FENCE_ACCOUNTS.length);
  const email = FENCE_CUSTOMERS[customer]!;
  return { account, email, customer, id: holderId(account, { email }) };
}
export const holdersOfCustomer = (customer: number): number[] =>
  [...Array(HOLDERS).keys()].filter((index) => holderOf(index).customer === customer);

export type FenceOp =
  /**
   * A cover check of the holder with no cancel of its own (CoverChecks.check, as a take-back's or the sweeper's): it
   * reads the holder's mark, then writes a new token before it reads the holder.
   */
  | { kind: 'check'; holder: number }
  /** Before an earning's cancel is sent (CoverChecks.cancelling): the holder marked, the cancel on its way. */
  | { kind: 'cancel'; holder: number }
  /** A cancel marked in an earlier round landed: its own check (CoverChecks.check with its token). */
  | { kind: 'landed'; pick: number }
  /**
   * The sweeper gives a code back to its customer (code-sweeper.ts: the order that held it let go): the holder marked
   * (CoverChecks.mark), the change that makes the code theirs (here a write to the holder), then its check; or not,
   * where the sweeper's bridge stops after the change (`stops`).
   */
  | { kind: 'giveBack'; holder: number; stops: boolean }
  /** The holder's fence as a Redeem reads it (fenceOf), on this bridge or (PostgreSQL) another on the same ledger. */
  | { kind: 'read'; holder: number; other: boolean }
  /** A Redeem notes the holder's fence before its balance read (storefront-reader.ts). */
  | { kind: 'note'; holder: number }
  /** A noted Redeem's reservation lands (reward-codes.ts #reserve) and asks whether it is fenced out (fencedOut). */
  | { kind: 'reserve'; pick: number; shop: number }
  /** The sweeper's pass (CoverChecks.checkMarked): fences past FENCE_DROPPED_MS go, then each marked holder is checked. */
  | { kind: 'sweep' }
  /** A customer's erasure as Privacy makes it: their reservations (RewardPrivacy), then the ledger's part. */
  | { kind: 'erase'; customer: number; shop: number | undefined }
  // The store model's own operations, at once with these: a compare-and-set of a record, intake folding an order
  // of a fence customer (what the erasure then scrubs), lowdb settling, failed writes, the clock moving.
  | { kind: 'count' }
  | { kind: 'fold'; customer: number }
  | { kind: 'settle' }
  | { kind: 'faults'; count: number; code: 'ENOSPC' | 'EIO' }
  | { kind: 'tick'; ms: number };

/** Often the first holder, so that checks, notes and sweeps meet on one; every holder, so that tokens could mix. */
const holderArb = fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.nat(HOLDERS - 1) });
export const fenceOpArb: fc.Arbitrary<FenceOp> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('check' as const), holder: holderArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), holder: holderArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('landed' as const), pick: fc.nat(3) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('giveBack' as const), holder: holderArb, stops: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), holder: holderArb, other: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('note' as const), holder: holderArb }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('reserve' as const), pick: fc.nat(3), shop: fc.nat(1) }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'sweep' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('erase' as const),
      customer: fc.nat(FENCE_CUSTOMERS.length - 1),
      shop: fc.option(fc.nat(1), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'count' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('fold' as const), customer: fc.nat(FENCE_CUSTOMERS.length - 1) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'settle' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('faults' as const),
      count: fc.integer({ min: 1, max: 3 }),
      code: fc.constantFrom('ENOSPC' as const, 'EIO' as const),
    }),
  },
  {
    // Just short of each limit (a read's age, a fence's drop), the limit itself, and steps that add up to them across
    // rounds (FENCE_KEPT_MS and a minute make FENCE_DROPPED_MS).
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('tick' as const),
      ms: fc.constantFrom(
        1_000,
        60_000,
        4 * 60_000,
        FENCE_KEPT_MS - 1,
        FENCE_KEPT_MS,
        FENCE_DROPPED_MS - 1,
        FENCE_DROPPED_MS,
      ),
    }),
  },
  {
    // A cancel's mark kept just short of CANCEL_LANDS_MS, and let go at it.
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('tick' as const),
      ms: fc.constantFrom(CANCEL_LANDS_MS - 1, CANCEL_LANDS_MS),
    }),
  },
);
export const fenceRoundsArb = fc.array(fc.array(fenceOpArb, { minLength: 1, maxLength: 4 }), {
  minLength: 4,
  maxLength: 14,
});

type Value = string | null;
/** What reaches a holder's fence in a round; `sure` once the write or the pass answered. */
type Action =
  { type: 'write'; token: string; sure: boolean } | { type: 'erase' } | { type: 'sweep'; now: number; sure: boolean };

/** A Redeem's note of a fence, until its reservation asks. */
export interface Note {
  /** Undefined until the read answered. */
  noted: Value | undefined;
  startedAt: number;
  seq: number;
  round: number;
  /** A check that started after the note surely wrote its fence after the note's read. */
  changed: boolean;
  /** Nothing reached the fence since the note (nor in its round). */
  quiet: boolean;
  /** The customer was erased since: the holder went, and its fence with it; the fence promises nothing more. */
  erased: boolean;
  /** Its reservation started. */
  taken: boolean;
}

export class FenceModel {
  clock = START;
  round = 0;
  #seq = 0;
  readonly #values = new Map<number, Set<Value>>();
  /** Each token: its holder, when its check started (`at`) and its place among the operations' starts. */
  readonly tokens = new Map<string, { holder: number; at: number; seq: number }>();
  readonly notes = new Map<number, Note>();
  #actions = new Map<number, Action[]>();
  /** Holders a check or a reservation reached this round: an erasure among them may be undone by them. */
  readonly #busy = new Set<number>();
  readonly counter = { sure: 0, maybe: 0 };
  /** Fences seen dropped by a sweep: shows the sweep is exercised. */
  dropped = 0;

  next(): number {
    return ++this.#seq;
  }

  values(holder: number): Set<Value> {
    return this.#values.get(holder) ?? new Set([null]);
  }

  startRound(): void {
    this.round++;
    this.#actions = new Map();
    this.#busy.clear();
  }

  busy(holder: number): boolean {
    return this.#busy.has(holder);
  }

  #act(holder: number, action: Action, dropsNothing = false): void {
    this.#actions.set(holder, [...(this.#actions.get(holder) ?? []), action]);
    const note = this.notes.get(holder);
    if (!note || dropsNothing) return;
    note.quiet = false;
    if (action.type === 'erase') note.erased = true;
  }

  /** A check started: its token, written for the holder. */
  wrote(holder: number, token: string, at: number): { type: 'write'; token: string; sure: boolean } {
    this.#busy.add(holder);
    this.tokens.set(token, { holder, at, seq: this.next() });
    const action = { type: 'write' as const, token, sure: false };
    this.#act(holder, action);
    return action;
  }

  /** Its write answered: a note of an earlier round was surely taken before it landed. */
  landed(holder: number, action: { token: string; sure: boolean }): void {
    action.sure = true;
    const note = this.notes.get(holder);
    if (note && note.round < this.round && this.tokens.get(action.token)!.seq > note.seq) note.changed = true;
  }

  reserving(holder: number): void {
    this.#busy.add(holder);
  }

  erasing(customer: number): void {
    for (const holder of holdersOfCustomer(customer)) this.#act(holder, { type: 'erase' });
  }

  /**
   * A sweep started at the model's clock; `sure` is set on each once it answered. Since the fence review (ae4198c) a
   * sweep drops a fence FENCE_DROPPED_MS after its check wrote it, not FENCE_KEPT_MS: a minute for the clocks of the
   * bridges, so that a reservation that finds no fence where it noted none is always too old to stand.
   */
  sweeping(): Array<{ sure: boolean }> {
    const now = this.clock;
    const old = (value: Value) => value !== null && now - this.tokens.get(value)!.at >= FENCE_DROPPED_MS;
    return [...Array(HOLDERS).keys()].map((holder) => {
      const action = { type: 'sweep' as const, now, sure: false };
      const candidates = [...this.values(holder), ...this.#written(holder)];
      this.#act(holder, action, !candidates.some(old));
      return action;
    });
  }

  /** A Redeem noted in an earlier round whose reservation has not started: the `pick`th, as many as there are. */
  pickNote(pick: number): number | undefined {
    const ready = [...this.notes]
      .filter(([, note]) => !note.taken && note.round < this.round && note.noted !== undefined)
      .map(([holder]) => holder);
    return ready.length === 0 ? undefined : ready[pick % ready.length];
  }

  noting(holder: number, seq: number): Note | undefined {
    if (this.notes.has(holder)) return undefined;
    const earlier = this.#actions.get(holder) ?? [];
    const note: Note = {
      noted: undefined,
      startedAt: this.clock,
      seq,
      round: this.round,
      changed: false,
      quiet: earlier.length === 0,
      erased: earlier.some((action) => action.type === 'erase'),
      taken: false,
    };
    this.notes.set(holder, note);
    return note;
  }

  #written(holder: number): string[] {
    return (this.#actions.get(holder) ?? []).flatMap((action) => (action.type === 'write' ? [action.token] : []));
  }

  /** What a read during this round may answer: what held before it, what it wrote, and none where it may drop. */
  mayRead(holder: number): Set<Value> {
    const actions = this.#actions.get(holder) ?? [];
    const may = new Set([...this.values(holder), ...this.#written(holder)]);
    if (actions.some((action) => action.type !== 'write')) may.add(null);
    return may;
  }

  /** What may hold once the round is over: the actions in every order they may land in, a failed one or not. */
  finals(holder: number): Set<Value> {
    const found = new Set<Value>();
    const old = (value: Value, now: number) => value !== null && now - this.tokens.get(value)!.at >= FENCE_DROPPED_MS;
    // A sweep lists the fences, then drops each that was old when listed and is old still (a compare-and-set).
    type Step = { action: Action; phase: 'one' | 'list' | 'drop'; index: number };
    const actions = this.#actions.get(holder) ?? [];
    const steps: Step[] = actions.flatMap((action, index): Step[] =>
      action.type === 'sweep'
        ? [
            { action, phase: 'list', index },
            { action, phase: 'drop', index },
          ]
        : [{ action, phase: 'one', index }],
    );
    const visit = (value: Value, left: Step[], listedOld: ReadonlySet<number>) => {
      if (left.length === 0) return void found.add(value);
      for (const step of left) {
        if (step.phase === 'drop' && left.some((each) => each.index === step.index && each.phase === 'list')) continue;
        const rest = left.filter((each) => each !== step);
        const { action } = step;
        if (action.type === 'sweep' && step.phase === 'list') {
          const listed = old(value, action.now) ? new Set([...listedOld, step.index]) : listedOld;
          visit(value, rest, listed);
        } else if (action.type === 'sweep') {
          const drops = listedOld.has(step.index) && old(value, action.now);
          visit(drops ? null : value, rest, listedOld);
          if (drops && !action.sure) visit(value, rest, listedOld);
        } else {
          // A failed write may have landed or not; an erasure drops the fence only where the holder went.
          visit(action.type === 'write' ? action.token : null, rest, listedOld);
          if (action.type === 'erase' || !action.sure) visit(value, rest, listedOld);
        }
      }
    };
    for (const value of this.values(holder)) visit(value, steps, new Set());
    return found;
  }

  /** The fence read once the round is over: what holds from now on, and what it tells a note. */
  observed(holder: number, value: Value): void {
    const before = this.values(holder);
    const swept = (this.#actions.get(holder) ?? []).some((action) => action.type === 'sweep');
    if (swept && value === null && [...before].some((each) => each !== null)) this.dropped++;
    this.#values.set(holder, new Set([value]));
    const note = this.notes.get(holder);
    if (!note || note.noted === undefined || value === null || value === note.noted) return;
    // The final token differs from the noted one: it landed after the note's read.
    if (this.tokens.get(value)!.seq > note.seq) note.changed = true;
  }
}
