// A customer's Redeem against an earning's cancel and its cover check (cover-checks.ts), when the balance read for
// the redemption was done before the cancel landed and its reservation is written after the check looked: the
// check found no code to withdraw, and the reservation, made on points the cancel took away, left a usable code
// whose redeem the service refuses at the merchant's cost (adversarial review of 88bc110). Two ways in:
// - a second bridge on the same ledger reads for the redemption: the cancel's drop (88bc110) never reaches its cache;
// - one bridge whose read answered just before the cancel's drop: nothing was dropped while it ran.
// The check now writes a fence on the ledger before it looks; a redemption notes the fence before its read, and a
// reservation that finds it changed after its write lets its points go and asks the customer to press again.
// The fence's expiry (adversarial review of 6116ac3): a reservation whose write outlasted the fence found none where it
// had noted none, and was timed from before its write; a sweeper whose clock ran ahead dropped a fence early.
import { describe, expect, it } from 'vitest';
import { FENCE_DROPPED_MS, FENCE_KEPT_MS, FENCE_KIND } from '../../src/core/storefront/reservations.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { bridge, outcome, service } from '../helpers/cover-fence.ts';
import { FakeCodeStore } from '../helpers/fake-code-store.ts';
import { gate, ledgerBackends } from '../helpers/ledger-backends.ts';

describe.each(ledgerBackends())(
  'a Redeem read before an earning’s cancel, reserved after its check (%s)',
  (_n, can, open) => {
    it.runIf(can)('on a second bridge: no code is left usable on points the cancel took away', async () => {
      const ledger = await open();
      const clock = { now: Date.now() };
      const { state, account } = service();
      const codeStore = new FakeCodeStore();
      const worker = bridge(ledger, account, codeStore, clock);
      const shopFront = bridge(ledger, account, codeStore, clock);
      const answerLater = gate();
      state.hold = answerLater.opened;
      const pressed = shopFront.redeem();
      await state.reading.opened;
      // The cancel lands at the service, and the first bridge's check finds nothing to withdraw.
      clock.now += 100;
      expect(await worker.cancel(() => (state.approved = 0))).toBe('covered');
      answerLater.open();
      const answer = await pressed;
      expect(answer.kind).toBe('busy');
      expect(await outcome(ledger, codeStore)).toEqual({ usable: 0, held: 0, marked: 0 });
      // Pressed again, Ada is told what the cancel left her.
      state.hold = undefined;
      expect(await shopFront.redeem()).toMatchObject({ kind: 'short', available: 0 });
    });

    it.runIf(can)(
      'on one bridge, its read answered just before the cancel’s drop: no code is left usable',
      async () => {
        const base = await open();
        const clock = { now: Date.now() };
        const { state, account } = service();
        const codeStore = new FakeCodeStore();
        // The reservation's first write waits while the cancel lands, is dropped and checked.
        const writing = gate();
        const cancelDone = gate();
        const addRecord = async (...args: Parameters<LedgerStore['addRecord']>) => {
          writing.open();
          await cancelDone.opened;
          return base.addRecord(...args);
        };
        const ledger = new Proxy(base, {
          get: (target, name) =>
            name === 'addRecord' ? addRecord : (Reflect.get(target, name) as () => unknown).bind(target),
        });
        const one = bridge(ledger, account, codeStore, clock);
        const pressed = one.redeem();
        await writing.opened;
        clock.now += 100;
        expect(await one.cancel(() => (state.approved = 0))).toBe('covered');
        cancelDone.open();
        expect((await pressed).kind).toBe('busy');
        expect(await outcome(base, codeStore)).toEqual({ usable: 0, held: 0, marked: 0 });
      },
    );

    it.runIf(can)('a read that starts after the check reserves as before, at once', async () => {
      const ledger = await open();
      const clock = { now: Date.now() };
      const { state, account } = service();
      const codeStore = new FakeCodeStore();
      const one = bridge(ledger, account, codeStore, clock);
      await one.cancel(() => (state.approved = 200));
      expect((await one.redeem()).kind).toBe('issued');
      expect(await outcome(ledger, codeStore)).toEqual({ usable: 1, held: 100, marked: 0 });
    });
  },
);

describe.each(ledgerBackends())('a check’s fences (%s)', (_n, can, open) => {
  it.runIf(can)('go with the sweeper’s pass once FENCE_DROPPED_MS has passed, and stay until then', async () => {
    const ledger = await open();
    const clock = { now: Date.now() };
    const { account } = service();
    const codeStore = new FakeCodeStore();
    const one = bridge(ledger, account, codeStore, clock);
    await one.cancel(() => undefined);
    await one.sweep();
    clock.now += FENCE_DROPPED_MS - 1;
    await one.sweep();
    expect(await ledger.listRecords(FENCE_KIND)).toHaveLength(1);
    clock.now += 1;
    await one.sweep();
    expect(await ledger.listRecords(FENCE_KIND)).toHaveLength(0);
  });
});

describe.each(ledgerBackends())('a reservation whose write outlasts the fence (%s)', (_n, can, open) => {
  /** Ada's Redeem, its reservation's first write held; the cancel lands and is checked meanwhile. */
  async function stalled(base: LedgerStore, clock: { now: number }) {
    const writing = gate();
    const go = gate();
    const addRecord = async (...args: Parameters<LedgerStore['addRecord']>) => {
      writing.open();
      await go.opened;
      return base.addRecord(...args);
    };
    const ledger = new Proxy(base, {
      get: (target, name) =>
        name === 'addRecord' ? addRecord : (Reflect.get(target, name) as () => unknown).bind(target),
    });
    const { state, account } = service(100);
    const codeStore = new FakeCodeStore();
    const shopFront = bridge(ledger, account, codeStore, clock);
    const worker = bridge(base, account, codeStore, clock);
    const pressed = shopFront.redeem();
    await writing.opened;
    clock.now += 100;
    expect(await worker.cancel(() => (state.approved = 0))).toBe('covered');
    return { pressed, go: go.open, account, codeStore };
  }

  it.runIf(can)('past the fence’s keeping: it lets go (no fence then and no fence now)', async () => {
    const base = await open();
    const clock = { now: Date.now() };
    const { pressed, go, account, codeStore } = await stalled(base, clock);
    clock.now += FENCE_DROPPED_MS;
    await bridge(base, account, codeStore, clock).sweep();
    expect(await base.listRecords(FENCE_KIND)).toHaveLength(0);
    go();
    expect((await pressed).kind).toBe('busy');
    expect(await outcome(base, codeStore)).toMatchObject({ usable: 0, held: 0 });
  });

  it.runIf(can)('the sweeper’s clock 1.5 s ahead keeps the fence a reservation may still compare', async () => {
    const base = await open();
    const clock = { now: Date.now() };
    const { pressed, go, account, codeStore } = await stalled(base, clock);
    clock.now += FENCE_KEPT_MS - 1_000;
    await bridge(base, account, codeStore, { now: clock.now + 1_500 }).sweep();
    go();
    expect((await pressed).kind).toBe('busy');
    expect(await outcome(base, codeStore)).toMatchObject({ usable: 0, held: 0 });
  });
});
