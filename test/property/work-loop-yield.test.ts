// The work loop yielding to acknowledgements (yieldTo), with fast-check's
// scheduler choosing when each handled item finishes against items
// arriving, contention starting and ending, and acknowledgements earning
// folds. After every run:
// - every item is handled exactly once: yielding never loses or strands one;
// - while contended, the loop never starts more than it was allowed;
// - never more than `concurrency` items at once;
// - contended or not, the loop keeps going: with the allowance earned, all
//   items are handled even if the contention never ends;
// And, alone: resting with work due now that it may not take yet (as
// PostgreSQL's nextInboxAt says of a backlog), it does not spin asking when
// work is due.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { WorkLoop } from '../../src/core/work-loop.ts';

const CONCURRENCY = 4;

type Command =
  | { kind: 'arrive'; count: number }
  | { kind: 'contended'; on: boolean }
  | { kind: 'acknowledged'; folds: number }
  | { kind: 'finishOne' };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('arrive' as const), count: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('contended' as const), on: fc.boolean() }),
  fc.record({ kind: fc.constant('acknowledged' as const), folds: fc.integer({ min: 1, max: 5 }) }),
  fc.constant({ kind: 'finishOne' as const }),
);

const settle = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('the work loop yielding to acknowledgements', () => {
  it('loses nothing, starts no more than allowed while contended, and never stops', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(commandArb, { maxLength: 40 }),
        fc.boolean(),
        async (s, commands, contentionEnds) => {
          const waiting: number[] = [];
          const handled = new Map<number, number>();
          let next = 0;
          let inFlight = 0;
          let mostInFlight = 0;
          const pressure = { on: false, answered: false, allowance: 0, granted: 0 };
          let startedUnderContention = 0;

          const finish = s.scheduleFunction(async (_item: number) => undefined);
          const loop = new WorkLoop<number>({
            name: 'yield-test',
            concurrency: CONCURRENCY,
            claim: async (limit) => {
              const items = waiting.splice(0, limit);
              if (pressure.answered) startedUnderContention += items.length;
              return items;
            },
            handle: async (item) => {
              inFlight++;
              mostInFlight = Math.max(mostInFlight, inFlight);
              try {
                await finish(item);
                handled.set(item, (handled.get(item) ?? 0) + 1);
              } finally {
                inFlight--;
              }
            },
            abandon: async () => undefined,
            leases: { owner: 'test', leaseMs: 60_000, keyOf: String, renew: async (claims) => claims },
            // Like PostgreSQL: anything waiting is due now.
            nextAt: async () => (waiting.length > 0 ? 0 : undefined),
            yieldTo: {
              contended: () => (pressure.answered = pressure.on),
              allowance: () => pressure.allowance,
              spend: (count) => {
                pressure.allowance -= count;
              },
            },
            restMs: 1,
            logger: createLogger({ level: 'silent' }),
          });
          loop.start();
          try {
            for (const command of commands) {
              switch (command.kind) {
                case 'arrive':
                  for (let i = 0; i < command.count; i++) waiting.push(next++);
                  loop.wake();
                  break;
                case 'contended':
                  pressure.on = command.on;
                  break;
                case 'acknowledged':
                  pressure.allowance += command.folds;
                  pressure.granted += command.folds;
                  break;
                case 'finishOne':
                  if (s.count() > 0) await s.waitOne();
                  break;
              }
              await settle();
              // Checked as it goes: the end grants enough for everything, which would hide an overrun.
              expect(
                startedUnderContention,
                'started while contended, beyond what acknowledgements allowed',
              ).toBeLessThanOrEqual(pressure.granted);
              expect(pressure.allowance).toBeGreaterThanOrEqual(0);
            }
            // The end: the contention ends, or goes on while acknowledgements earn enough for everything left.
            if (contentionEnds) pressure.on = false;
            else {
              pressure.allowance += next + CONCURRENCY;
              pressure.granted += next + CONCURRENCY;
            }
            for (let rounds = 0; handled.size < next && rounds < 2_000; rounds++) {
              if (s.count() > 0) await s.waitAll();
              await settle();
            }
            expect(handled.size).toBe(next);
            expect([...handled.values()].every((times) => times === 1)).toBe(true);
            expect(startedUnderContention).toBeLessThanOrEqual(pressure.granted);
            expect(mostInFlight).toBeLessThanOrEqual(CONCURRENCY);
          } finally {
            pressure.on = false;
            const stopped = loop.stop();
            while (s.count() > 0) await s.waitAll();
            await stopped;
          }
        },
      ),
      { numRuns: Number(process.env.YIELD_MODEL_RUNS ?? 40) },
    );
  }, 120_000);

  it('while contended starts only what acknowledgements allowed, a whole batch at a time', async () => {
    const waiting = Array.from({ length: 12 }, (_, i) => i);
    const handled: number[] = [];
    const pressure = { allowance: CONCURRENCY - 1 };
    const loop = new WorkLoop<number>({
      name: 'allowance-test',
      concurrency: CONCURRENCY,
      claim: async (limit) => waiting.splice(0, limit),
      handle: async (item) => {
        handled.push(item);
      },
      abandon: async () => undefined,
      leases: { owner: 'test', leaseMs: 60_000, keyOf: String, renew: async (claims) => claims },
      nextAt: async () => (waiting.length > 0 ? 0 : undefined),
      yieldTo: {
        contended: () => true,
        allowance: () => pressure.allowance,
        spend: (count) => void (pressure.allowance -= count),
      },
      restMs: 5,
      logger: createLogger({ level: 'silent' }),
    });
    const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    loop.start();
    try {
      await after(50);
      expect(handled, 'less than a batch allowed: nothing started').toHaveLength(0);
      pressure.allowance += 1;
      // (vi.waitFor gives up after 1 s by default: generous instead, as it only bounds a failure.)
      await vi.waitFor(() => expect(handled.length).toBeGreaterThan(0), { timeout: 15_000 });
      await after(50);
      expect(handled, 'one batch allowed: one batch started, and no more').toHaveLength(CONCURRENCY);
      pressure.allowance += 2 * CONCURRENCY;
      await vi.waitFor(() => expect(handled).toHaveLength(3 * CONCURRENCY), { timeout: 15_000 });
      expect(pressure.allowance).toBe(0);
    } finally {
      await loop.stop();
    }
  });

  it('rests without spinning while work is due that it may not take yet', async () => {
    let asked = 0;
    const loop = new WorkLoop<number>({
      name: 'rest-test',
      concurrency: CONCURRENCY,
      claim: async (limit) => Array.from({ length: limit }, (_, i) => i),
      handle: async () => undefined,
      abandon: async () => undefined,
      leases: { owner: 'test', leaseMs: 60_000, keyOf: String, renew: async (claims) => claims },
      nextAt: async () => {
        asked++;
        return 0; // due now, always
      },
      yieldTo: { contended: () => true, allowance: () => 0, spend: () => undefined },
      restMs: 1_000,
      logger: createLogger({ level: 'silent' }),
    });
    loop.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await loop.stop();
    expect(asked).toBeLessThanOrEqual(1);
  });
});
