// What the worker knows of its accounts' budgets: spent budgets forgotten as
// they return, and an account's backfill held back while a live order of it
// waits for a place, but never beyond its share, and never for ever.
import { describe, expect, it } from 'vitest';
import { AccountBudgets, SCARCE_MS, WAIT_GRACE_MS, type LapsedWait } from '../../src/core/worker/account-budgets.ts';

function budgets(minShare = 0.2) {
  const clock = { now: 1_000_000 };
  return { clock, budgets: new AccountBudgets({ now: () => clock.now, minShare }) };
}

describe('account budgets as the worker sees them', () => {
  it('keeps the earliest return of a spent budget, and forgets it once returned', () => {
    const { clock, budgets: b } = budgets();
    b.noteSpent('A', clock.now + 500);
    b.noteSpent('A', clock.now + 300);
    b.noteSpent('A', clock.now + 900);
    expect(b.spent.get('A')).toBe(clock.now + 300);
    clock.now += 300;
    expect(b.spent.has('A')).toBe(false);
  });

  it('holds back an account’s backfill while a live order of it waits, until four live places went', () => {
    const { clock, budgets: b } = budgets(0.2);
    expect(b.backfillMayTakePlace('A')).toBe(true);
    b.noteLiveWait('A:1', 'A', clock.now + 100);
    b.noteLiveWait('A:2', 'A', clock.now + 100);
    expect(b.backfillMayTakePlace('A')).toBe(false);
    expect([...b.holdingBackfill()]).toEqual(['A']);
    // Another account's backfill is not held.
    expect(b.backfillMayTakePlace('B')).toBe(true);
    // The waiting live order got its place: the other still waits.
    expect(b.placeGiven('A', 'live', 'A:1')).toBe(false);
    expect(b.backfillMayTakePlace('A')).toBe(false);
    b.placeGiven('A', 'live', 'A:3');
    b.placeGiven('A', 'live', 'A:4');
    // Four live places since backfill's last: its share is due, though a live order still waits (and the worker
    // is told, to look for backfill at once).
    expect(b.placeGiven('A', 'live', 'A:5')).toBe(true);
    expect(b.backfillMayTakePlace('A')).toBe(true);
    b.placeGiven('A', 'backfill', 'A:90');
    expect(b.backfillMayTakePlace('A')).toBe(false);
    b.placeGiven('A', 'live', 'A:2');
    expect(b.backfillMayTakePlace('A')).toBe(true);
  });

  it('counts a claimed live order as waiting from its claim, while places are scarce, until it has one or needs none', () => {
    const { clock, budgets: b } = budgets();
    b.noteSpent('A', clock.now + 50);
    b.turnStarted('A:1', 'live', 'A');
    expect(b.backfillMayTakePlace('A')).toBe(false);
    b.placeGiven('A', 'live', 'A:1');
    expect(b.backfillMayTakePlace('A')).toBe(true);
    b.turnEnded('A:1');
    // A live order with nothing to send: its turn ends, and so does its wait.
    b.turnStarted('A:2', 'live', 'A');
    expect(b.backfillMayTakePlace('A')).toBe(false);
    b.turnEnded('A:2');
    expect(b.backfillMayTakePlace('A')).toBe(true);
    // Or its step says so before its turn ends (its save letting it go may take a while).
    b.turnStarted('A:5', 'live', 'A');
    b.needsNoPlace('A:5');
    expect(b.backfillMayTakePlace('A')).toBe(true);
    b.turnEnded('A:5');
    // Backfill waits for nothing; nor a live order of a shop whose account is not known yet, until a step finds it.
    b.turnStarted('A:3', 'backfill', 'A');
    b.turnStarted('A:4', 'live', undefined);
    expect(b.backfillMayTakePlace('A')).toBe(true);
    b.accountFound('A:4', 'A');
    expect(b.backfillMayTakePlace('A')).toBe(false);
    // Places stop being scarce a while after the budget was last found spent.
    clock.now += SCARCE_MS;
    expect(b.backfillMayTakePlace('A')).toBe(true);
  });

  it('holds nothing back for claimed live orders while the account’s places are not scarce', () => {
    const { budgets: b } = budgets();
    // Never found spent (a budget to spare, or none to ask): live orders under way hold no backfill back.
    for (let i = 0; i < 5; i++) b.turnStarted(`A:${i}`, 'live', 'A');
    expect(b.backfillMayTakePlace('A')).toBe(true);
    expect(b.holdingBackfill().size).toBe(0);
  });

  it('never holds backfill back with a share of 1, and always with none', () => {
    const all = budgets(1).budgets;
    all.noteLiveWait('A:1', 'A', 0);
    expect(all.backfillMayTakePlace('A')).toBe(true);
    const none = budgets(0);
    none.budgets.noteLiveWait('A:1', 'A', none.clock.now + 100);
    for (let i = 0; i < 50; i++) none.budgets.placeGiven('A', 'live', `A:${10 + i}`);
    expect(none.budgets.backfillMayTakePlace('A')).toBe(false);
  });

  it('asks for a wait to be checked a while after it was due and its turn here ended, and ends it if the order no longer waits', () => {
    const { clock, budgets: b } = budgets();
    b.turnStarted('A:1', 'live', 'A');
    b.noteLiveWait('A:1', 'A', clock.now + 100);
    // The save letting it go is slow: while its turn is under way here, it is not checked.
    clock.now += 100 + WAIT_GRACE_MS;
    expect(b.lapsed()).toEqual([]);
    expect(b.nextChangeAt()).toBeUndefined();
    b.turnEnded('A:1');
    expect(b.backfillMayTakePlace('A')).toBe(false);
    expect(b.nextChangeAt()).toBe(clock.now + WAIT_GRACE_MS);
    clock.now += WAIT_GRACE_MS;
    // Lapsed: still holding, until the store says whether the order still waits.
    const [[lapsed]] = b.lapsed() as [[LapsedWait]];
    expect(lapsed.key).toBe('A:1');
    expect(b.backfillMayTakePlace('A')).toBe(false);
    // Still due (every slot busy, say): kept another while.
    b.lapseChecked(lapsed, true);
    expect(b.lapsed()).toEqual([]);
    expect(b.nextChangeAt()).toBe(clock.now + WAIT_GRACE_MS);
    clock.now += WAIT_GRACE_MS;
    // A read made before the order's next turn says nothing of the wait after it.
    const [[again]] = b.lapsed() as [[LapsedWait]];
    b.turnStarted('A:1', 'live', 'A');
    b.noteLiveWait('A:1', 'A', clock.now + 100);
    b.turnEnded('A:1');
    b.lapseChecked(again, false);
    expect(b.backfillMayTakePlace('A')).toBe(false);
    clock.now += 100 + WAIT_GRACE_MS;
    // No longer due (another instance earned it): the wait ends.
    const [[last]] = b.lapsed() as [[LapsedWait]];
    b.lapseChecked(last, false);
    expect(b.backfillMayTakePlace('A')).toBe(true);
    expect(b.nextChangeAt()).toBeUndefined();
    // One let go to wait until later: the loop looks again when it is due.
    b.turnStarted('A:2', 'live', 'A');
    b.noteLiveWait('A:2', 'A', clock.now + 500);
    b.turnEnded('A:2');
    expect(b.nextChangeAt()).toBe(clock.now + 500);
  });

  it('tells what claims pass over and when that changes as of one instant, though the clock moves while it reads', () => {
    // A clock that moves on a millisecond each time it is read: the budget returns between two of its reads.
    let at = 1_000_000;
    const b = new AccountBudgets({ now: () => at++, minShare: 0.2 });
    b.noteSpent('A', at + 3);
    b.turnStarted('B:1', 'live', 'B');
    b.noteLiveWait('B:1', 'B', at + 100);
    // Passed over, with its return: never passed over with its return already forgotten (the loop slept past it).
    const outlook = b.outlook();
    expect([...outlook.spent]).toEqual([['A', 1_000_003]]);
    expect([...outlook.holding]).toEqual(['B']);
    expect(outlook.changesAt).toBe(1_000_003);
    expect(b.outlook().spent.size).toBe(0);
  });

  it('tells a hold whose every wait lapsed unchecked as a change due now: the next look checks it', () => {
    const { clock, budgets: b } = budgets();
    b.turnStarted('A:1', 'live', 'A');
    b.noteLiveWait('A:1', 'A', clock.now + 100);
    b.turnEnded('A:1');
    // It lapsed after the last check (one just before the worker's read of when work is due, say): still held, and
    // nothing else may change it (before, no time was told, and with the order not due here the loop slept).
    clock.now += 100 + WAIT_GRACE_MS;
    expect(b.holdingBackfill().has('A')).toBe(true);
    expect(b.nextChangeAt()).toBe(clock.now);
    expect(b.outlook().changesAt).toBe(clock.now);
    // Checked: still due, it is kept another while, and told for then.
    const [[lapsed]] = b.lapsed() as [[LapsedWait]];
    b.lapseChecked(lapsed, true);
    expect(b.nextChangeAt()).toBe(clock.now + WAIT_GRACE_MS);
  });

  it('asks to check an account’s lapsed waits only when none of its waits is current, oldest first', () => {
    const { clock, budgets: b } = budgets();
    b.noteLiveWait('A:1', 'A', clock.now);
    b.noteLiveWait('A:2', 'A', clock.now + 10);
    b.noteLiveWait('B:1', 'B', clock.now + 5_000);
    clock.now += WAIT_GRACE_MS + 10;
    // A's two have lapsed; B's is current.
    expect(b.lapsed().map((waits) => waits.map((wait) => wait.key))).toEqual([['A:1', 'A:2']]);
    // While a live order of A is under way here, A's lapsed waits need no reading.
    b.turnStarted('A:3', 'live', 'A');
    expect(b.lapsed()).toEqual([]);
  });

  it('keeps the wait of a backfill order lifted to live in its turn and let go to wait for a place', () => {
    const { clock, budgets: b } = budgets();
    b.turnStarted('A:1', 'backfill', 'A');
    // A live event folded in during its turn lifts it to live; its step finds the budget spent.
    b.noteLiveWait('A:1', 'A', clock.now + 500);
    expect(b.backfillMayTakePlace('A')).toBe(false);
    clock.now += 500 + WAIT_GRACE_MS;
    expect(b.lapsed()).toEqual([]);
    b.turnEnded('A:1');
    expect(b.backfillMayTakePlace('A')).toBe(false);
    expect(b.nextChangeAt()).toBe(clock.now + WAIT_GRACE_MS);
  });

  it('owes backfill a place first once its share is due, and never with a share of none', () => {
    const { budgets: b } = budgets(0.2);
    for (let i = 0; i < 3; i++) b.placeGiven('A', 'live', `A:${i}`);
    expect(b.shareDue('A')).toBe(false);
    b.placeGiven('A', 'live', 'A:3');
    expect(b.shareDue('A')).toBe(true);
    b.placeGiven('A', 'backfill', 'A:9');
    expect(b.shareDue('A')).toBe(false);
    const none = budgets(0).budgets;
    for (let i = 0; i < 50; i++) none.placeGiven('A', 'live', `A:${i}`);
    expect(none.shareDue('A')).toBe(false);
  });

  it('ends a wait with the order’s last turn, unless that turn let it go to wait again', () => {
    const { clock, budgets: b } = budgets();
    b.noteSpent('A', clock.now + 50);
    b.turnStarted('A:1', 'live', 'A');
    b.noteLiveWait('A:1', 'A', clock.now + 100);
    b.turnEnded('A:1');
    // Claimed again: a turn that ends otherwise (nothing left to send, say) ends the wait.
    b.turnStarted('A:1', 'live', 'A');
    b.turnEnded('A:1');
    expect(b.backfillMayTakePlace('A')).toBe(true);
    // Its lease ran out mid-turn and this instance claimed it again: the stale turn's end leaves the new one waiting.
    b.turnStarted('A:2', 'live', 'A');
    b.turnStarted('A:2', 'live', 'A');
    b.turnEnded('A:2');
    expect(b.backfillMayTakePlace('A')).toBe(false);
    b.noteLiveWait('A:2', 'A', clock.now + 100);
    b.turnEnded('A:2');
    expect(b.backfillMayTakePlace('A')).toBe(false);
  });

  it('tells since when a budget has been spent, across its minutes, and starts again after a real break', () => {
    const { clock, budgets: b } = budgets();
    const start = clock.now;
    // Spent each minute, found so again a moment after each return: one spell, since the first.
    for (let minute = 0; minute < 5; minute++) {
      b.noteSpent('A', clock.now + 60_000);
      clock.now += 61_000;
    }
    b.noteSpent('A', clock.now + 60_000);
    expect(b.spentSince.get('A')).toBe(start);
    // Returned, and not spent for a while: gone, and a new spell starts from when it is found spent again.
    clock.now += 120_000;
    expect(b.spentSince.has('A')).toBe(false);
    b.noteSpent('A', clock.now + 60_000);
    expect(b.spentSince.get('A')).toBe(clock.now);
  });
});
