// Records read by their kind's schema, on both backends: a record of the wrong shape stops at the read that finds
// it with its kind and id named and none of its values (a customer's contact stays out of logs); one written by a
// later release, with fields this one does not know, is read, changed and written back with them.
import { describe, expect, it } from 'vitest';
import { RecordShapeError } from '../../src/core/store/roles/record-types.ts';
import { HOLDER_KIND, type Holder } from '../../src/core/storefront/reward-records.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { raw } from '../helpers/raw-records.ts';

const holder = (points: unknown): unknown => ({
  account: 'acct',
  customer: { email: 'ada@example.com' },
  reservations: [
    {
      id: 'r1',
      platform: 'testshop',
      shop: 'shop-1',
      customerId: 'c-ada',
      rewardId: 'five-off',
      points,
      benefit: { kind: 'amount_off', amount: '5.00' },
      code: 'LB-CODE',
      state: 'issued',
      expiresAt: '2026-12-01T00:00:00.000Z',
      createdAt: '2026-11-01T00:00:00.000Z',
    },
  ],
});

describe.each(ledgerBackends())('typed records, on %s', (_name, available, open) => {
  it.skipIf(!available)(
    'refuses a record of the wrong shape, naming its kind and id and none of its values',
    async () => {
      const store = await open();
      // Points as text: a reservation that would count a customer's balance wrongly.
      await store.putRecord(raw(HOLDER_KIND.kind), 'acct:ada', holder('100'));
      const read = store.getRecord(HOLDER_KIND, 'acct:ada');
      await expect(read).rejects.toThrow(RecordShapeError);
      const error = (await read.catch((caught: unknown) => caught)) as RecordShapeError;
      expect(error.message).toContain('reward-holder record acct:ada');
      expect(error.message).toContain('reservations.0.points');
      expect(error.message).not.toContain('ada@example.com');
      expect(error.message).not.toContain('"100"');
      // A change of it is refused before it decides anything: nothing is written over it.
      await expect(store.changeRecord(HOLDER_KIND, 'acct:ada', () => ({ delete: true }))).rejects.toThrow(
        RecordShapeError,
      );
      expect(await store.getRecord(raw(HOLDER_KIND.kind), 'acct:ada')).toEqual(holder('100'));
      await expect(store.listRecords(HOLDER_KIND)).rejects.toThrow(/reward-holder record acct:ada/);
    },
  );

  it.skipIf(!available)('refuses to write a record of the wrong shape, and keeps nothing of it', async () => {
    const store = await open();
    const wrong = holder('100') as Holder;
    await expect(store.putRecord(HOLDER_KIND, 'acct:ada', wrong)).rejects.toThrow(/reward-holder record acct:ada/);
    await expect(store.addRecord(HOLDER_KIND, 'acct:ada', wrong)).rejects.toThrow(RecordShapeError);
    expect(await store.getRecord(HOLDER_KIND, 'acct:ada')).toBeUndefined();
    await store.putRecord(HOLDER_KIND, 'acct:ada', holder(100) as Holder);
    await expect(store.changeRecord(HOLDER_KIND, 'acct:ada', () => ({ put: wrong }))).rejects.toThrow(RecordShapeError);
    expect(await store.getRecord(HOLDER_KIND, 'acct:ada')).toEqual(holder(100));
  });

  it.skipIf(!available)('reads a reservation kept before rewards had kinds as the amount off it was', async () => {
    const store = await open();
    const before = holder(100) as { reservations: Array<Record<string, unknown>> };
    const { benefit: _benefit, ...kept } = before.reservations[0]!;
    await store.putRecord(raw(HOLDER_KIND.kind), 'acct:ada', {
      ...before,
      reservations: [{ ...kept, amountOff: '5.00' }],
    });
    // The benefit it gave, and its amountOff kept, for that release beside this one.
    expect(await store.getRecord(HOLDER_KIND, 'acct:ada')).toEqual({
      ...before,
      reservations: [{ ...before.reservations[0], amountOff: '5.00' }],
    });
  });

  it.skipIf(!available)('keeps the fields a later release wrote through a change by this one', async () => {
    const store = await open();
    const later = { ...(holder(100) as Holder), tier: 'gold' };
    await store.putRecord(raw(HOLDER_KIND.kind), 'acct:ada', later);
    const { value } = await store.changeRecord(HOLDER_KIND, 'acct:ada', (current) =>
      current ? { put: { ...current, redeemedEarlier: 5 } } : undefined,
    );
    expect(value?.redeemedEarlier).toBe(5);
    expect(await store.getRecord(raw(HOLDER_KIND.kind), 'acct:ada')).toEqual({ ...later, redeemedEarlier: 5 });
  });
});
