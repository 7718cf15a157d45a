// Review L of issue 64: the sweeper puts back a refused code's dead letter that a retry or discard took when the
// bridge stopped (review J6, refused-codes.ts putBackTaken). A pass that falls between a person's discard taking the
// letter and the discard telling the order is no stop: the person's choice goes through, and the letter put back
// must not stay behind it, naming a code whose points were let go and asking for a choice already made.
import { describe, expect, it } from 'vitest';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { BIG, DAY_MS, refusedAtUse, rewardWorld } from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const orderId = () => String(64_996_000 + ++next);

describe.each(ledgerBackends())('a refused code’s dead letter, review L (%s)', (_n, runs, open) => {
  it.runIf(runs)('L1: a sweeper pass amid a person’s discard leaves no letter behind the discard', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email, code, refusal } = await refusedAtUse(world, w, { orderId, prefix: 'review-l' });
    // A person presses Discard: the bridge takes the letter (engine.ts, discardDeadLetter), the sweeper passes just
    // then, before the order is told, and the discard goes on: the code's points are let go.
    const remove = w.ledger.removeDeadLetter.bind(w.ledger);
    w.ledger.removeDeadLetter = async (id) => {
      w.ledger.removeDeadLetter = remove;
      const taken = await remove(id);
      w.clock.now += DAY_MS;
      await w.sweeper.sweep();
      return taken;
    };
    await w.engine.discardDeadLetter(refusal!.id);
    await w.settle();
    await w.sweeper.sweep();
    await eventually(async () => expect((await w.reservations(email)).map((each) => each.state)).toEqual(['released']));
    // Nothing is left for a person to choose: no letter names the code.
    const letters = await w.engine.store.listDeadLetters();
    expect(letters.filter((each) => each.reason.includes(code))).toEqual([]);
  });
});
