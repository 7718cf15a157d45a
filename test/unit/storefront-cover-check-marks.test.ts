// An earning's cancel whose cover check (cover-checks.ts) could not run after it landed, against a Redeem whose
// balance was read before the cancel and whose reservation came after (adversarial review of the fence, 6116ac3).
// The check's fence never changed, so the Redeem kept its code: only a later check can withdraw it, and it needs a
// mark that outlives the failure.
// - No code at the mark's turn: nothing was marked, and a check that failed (its fence's write refused, or the
//   bridge stopped before it) was lost for good.
// - A mark taken by a check made before the cancel landed (the sweeper's pass, or the check of another cancel of
//   the customer's): that check found the holder covered, and the mark went with it.
import { describe, expect, it } from 'vitest';
import { CANCEL_LANDS_MS } from '../../src/core/storefront/cover-marks.ts';
import { FENCE_KIND } from '../../src/core/storefront/reservations.ts';
import { ADA, ada, bridge, faulty, outcome, service } from '../helpers/cover-fence.ts';
import { FakeCodeStore } from '../helpers/fake-code-store.ts';
import { gate, ledgerBackends } from '../helpers/ledger-backends.ts';

/** A Redeem on `shopFront` whose balance read reaches the service now and answers once `answer()` is called. */
async function pressHeld(state: ReturnType<typeof service>['state'], shopFront: ReturnType<typeof bridge>) {
  const answerLater = gate();
  state.reading = gate();
  state.hold = answerLater.opened;
  const pressed = shopFront.redeem();
  await state.reading.opened;
  state.hold = undefined;
  return { pressed, answer: answerLater.open };
}

describe.each(ledgerBackends())('a cancel whose check did not run after it landed (%s)', (_n, can, open) => {
  it.runIf(can).each(['its fence’s write is refused', 'the bridge stops before it'])(
    'with no code of Ada’s at the mark: the sweeper withdraws the code reserved meanwhile (%s)',
    async (how) => {
      const base = await open();
      const { ledger, failNextPut } = faulty(base);
      const clock = { now: Date.now() };
      const { state, account } = service(100);
      const codeStore = new FakeCodeStore();
      const worker = bridge(ledger, account, codeStore, clock);
      const shopFront = bridge(base, account, codeStore, clock);
      const { pressed, answer } = await pressHeld(state, shopFront);
      clock.now += 100;
      const mark = await worker.checks.cancelling('acct', ada);
      state.approved = 0;
      if (how === 'its fence’s write is refused') {
        failNextPut(FENCE_KIND);
        await expect(worker.checks.check(account, ADA, mark)).rejects.toThrow(/injected/);
      }
      answer();
      // Nothing changed the fence: the Redeem keeps its code, for the sweeper to find.
      expect((await pressed).kind).toBe('issued');
      await worker.sweep();
      expect(await outcome(base, codeStore)).toEqual({ usable: 0, held: 0, marked: 1 });
      // The cancel's own check never came: its mark is kept until the cancel has surely ended, then goes.
      clock.now += CANCEL_LANDS_MS;
      await worker.sweep();
      expect(await outcome(base, codeStore)).toEqual({ usable: 0, held: 0, marked: 0 });
    },
  );

  it.runIf(can).each(['the sweeper’s pass', 'the check of another cancel of Ada’s'])(
    'a mark taken by a check before the cancel landed (%s): the sweeper withdraws the code reserved meanwhile',
    async (who) => {
      const base = await open();
      const { ledger, failNextPut } = faulty(base);
      const clock = { now: Date.now() };
      const { state, account } = service(who === 'the sweeper’s pass' ? 200 : 300);
      const codeStore = new FakeCodeStore();
      const worker = bridge(ledger, account, codeStore, clock);
      const shopFront = bridge(base, account, codeStore, clock);
      expect((await shopFront.redeem()).kind).toBe('issued');
      // The cancel is about to leave (marked); a check is made before it lands, and finds Ada covered.
      const mark = await worker.checks.cancelling('acct', ada);
      if (who === 'the sweeper’s pass') await worker.sweep();
      else expect(await worker.cancel(() => (state.approved -= 100))).toBe('covered');
      // Ada presses Redeem: her balance is read before the cancel lands, and the cancel's own check fails.
      const { pressed, answer } = await pressHeld(state, shopFront);
      clock.now += 100;
      state.approved -= 100;
      failNextPut(FENCE_KIND);
      await expect(worker.checks.check(account, ADA, mark)).rejects.toThrow(/injected/);
      answer();
      expect((await pressed).kind).toBe('issued');
      // Ada's 100 points cover one code: the newest goes.
      await worker.sweep();
      expect(await outcome(base, codeStore)).toMatchObject({ usable: 1, held: 100 });
    },
  );
});
