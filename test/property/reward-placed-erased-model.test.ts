// Issue 64's two newer paths of reward codes, model-checked on both ledger backends: orders placed with a code and
// not paid yet (placed-orders.ts: the worker notes them, and the sweeper holds a withdrawn code's points while one
// waits, PLACED_WAIT_MS at most), and the codes of an erased shop (erased-codes.ts: kept at the erasure, brought back
// by an order that pays with one after a reinstall, dropped once they can pay no more). A real engine and worker on
// the sandbox, RewardCodes, CoverChecks and CodeSweeper as test/helpers/reward-world.ts wires them, and the
// in-memory store's codes, counting uses at once or late (Shopify's asyncUsageCount) per run.
// Commands (test/helpers/reward-placed-model.ts): customers take codes; a checkout places an order with one, paid or
// not; a placed order pays later, or is cancelled (its use given back or not); the reward is turned off or on; time
// passes (the settling window, a code's expiry, PLACED_WAIT_MS) and the sweeper runs; the shop is uninstalled and
// erased, and reinstalled. The money rule after each: a code's points are redeemed once when an order paid with it
// while they were held, never twice, never let go while a checkout or a placed order can still take its discount;
// and at the end of a run, past every limit, nothing is held. Kept small (issue 67): a few runs of a few commands.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { rewardWorld } from '../helpers/reward-world.ts';
import {
  Advance,
  Leave,
  Offer,
  Place,
  Return,
  REWARD,
  Redeem,
  Settle,
  checkMoney,
  closing,
  commands,
  reinstall,
  type Cmd,
  type Model,
  type Real,
} from '../helpers/reward-placed-model.ts';

const world = sandboxWithEngines();
const CUSTOMERS = 2;
/** Points each customer earns at the start of a run: two codes' worth. */
const EARNS = 2;
const SUITE_SEED = 20_261_128;

/** One run: new customers with EARNS × 100 points, the commands with the money rule after each, then the closing. */
async function runModel(real: Real, cmds: Iterable<Cmd>, late: boolean, strict: boolean): Promise<void> {
  const { w } = real;
  await reinstall(w);
  w.store.countLateUses();
  w.store.parts.usesCountedLate = late;
  const tag = Math.random().toString(36).slice(2, 10);
  const model: Model = {
    customers: Array.from({ length: CUSTOMERS }, (_, index) => `placed-${tag}-${index}@example.com`),
    ...{ codes: [], orders: [], installed: true, rewardOn: true, late },
  };
  for (const email of model.customers)
    for (let each = 0; each < EARNS; each += 1) await w.earn(email, real.nextOrder());
  await w.settle();
  for (const email of model.customers)
    await eventually(() =>
      expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).approved).toBe(EARNS * 100),
    );
  await fc.asyncModelRun(
    () => ({ model, real }),
    [...cmds].map((command): Cmd => ({
      check: (m) => command.check(m) as boolean,
      run: async (m, r) => {
        await command.run(m, r);
        const what = `ran ${command.toString().split('(')[0]}`;
        r.stats[what] = (r.stats[what] ?? 0) + 1;
        await checkMoney(r, m, command instanceof Advance);
      },
      toString: () => command.toString(),
    })),
  );
  return closing(real, model, strict);
}

describe.each(ledgerBackends())('placed and erased reward codes, model-checked (%s)', (name, runs, open) => {
  it.runIf(runs)(
    'redeems a code paid while held once, holds it while it can pay, and holds nothing past the limits',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [REWARD] });
      let orders = name === 'lowdb' ? 64_950_000 : 64_960_000;
      const real: Real = { w, nextOrder: () => String(++orders), stats: {} };
      // Found by this model (its first generator's seed 20261128, path 2:9:8:8:8:8; and seed -1002157785 where the
      // store counts late): an order placed with a code, its use counted, that never pays nor is cancelled held the
      // code's points for good. Now let go once the code expired, settled and PLACED_WAIT_MS passed.
      await runModel(real, [new Redeem(0), new Place(0, false)], false, true);
      await runModel(real, [new Redeem(0), new Place(0, false)], true, true);
      // The histories the weights make rare, on every run: a code withdrawn (its reward off) as an order placed with
      // it waits in a store that counts late, the order paid later or never; and an erased shop's code paid after a
      // reinstall, at checkout or by an order placed before the erasure.
      const placed = [new Redeem(0), new Place(0, false), new Offer(false), new Advance('settling')];
      await runModel(real, [...placed, new Settle(0, 'paid')], true, true);
      await runModel(real, [...placed, new Advance('placed wait')], true, true);
      await runModel(real, [new Redeem(1), new Leave(), new Return(), new Place(0, true)], false, false);
      for (const what of ['paid after withdrawal', "paid at checkout, erased shop's code"])
        expect(real.stats[what], what).toBe(1);
      // Ten commands at least: fc.commands' histories came out two or three long (their checks skip many).
      const property = fc.asyncProperty(
        fc.array(commands(CUSTOMERS), { minLength: 10, maxLength: 14 }),
        fc.boolean(),
        async (cmds, late) => {
          await runModel(real, cmds, late, true);
        },
      );
      // The suite's runs start from one seed; `MODEL_SOAK=1` runs 40 from a random one.
      const soak = process.env.MODEL_SOAK === '1';
      const seed = process.env.MODEL_SEED ? Number(process.env.MODEL_SEED) : soak ? undefined : SUITE_SEED;
      await fc.assert(property, {
        numRuns: soak ? 40 : 6,
        ...(seed === undefined ? {} : { seed }),
        ...(process.env.MODEL_PATH ? { path: process.env.MODEL_PATH } : {}),
      });
      for (const what of ['paid at checkout', 'ran settle', 'shop erased'])
        expect(real.stats[what] ?? 0, `${what}: ${JSON.stringify(real.stats)}`).toBeGreaterThan(0);
    },
    300_000,
  );
});
