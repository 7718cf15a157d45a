// Ledger format 4 (docs/upgrading.md): an order a format 3 release kept with its one reward code (`redeemCode`, its
// redeem's state in the order's `redemption`) is read as a list of one code with that state, and the order's own
// redeem as not made; a format 4 order is read as it is.
import { describe, expect, it } from 'vitest';
import { newOrderRecord, type OrderRecord } from '../../src/core/order-record.ts';
import { upgradeOrder } from '../../src/core/store/format/upgrade-records.ts';
import { redemptionSummary } from '../../src/core/redeems.ts';
import { orderEvent } from '../helpers/order-events.ts';

const code = { code: 'LB-ABCDEFGHJKLMNPQR', account: 'default', points: 200, holder: 'default:abc', reservation: 'r1' };

function format3(redemption: 'none' | 'sending' | 'sent'): OrderRecord {
  const record = newOrderRecord(orderEvent({ orderId: '1', facts: ['placed', 'paid'] }), new Date().toISOString());
  Object.assign(record.upstream, {
    redemption,
    redeemCode: code,
    ...(redemption === 'sent' ? { redeemedPoints: 200 } : {}),
  });
  return record;
}

describe('upgradeOrder, format 3 to 4', () => {
  it.each(['none', 'sending', 'sent'] as const)('reads a code whose redeem was %s as that code’s own', (state) => {
    const order = upgradeOrder(format3(state));
    expect(order.upstream.redeemCodes).toEqual([{ ...code, redemption: state }]);
    expect(order.upstream).not.toHaveProperty('redeemCode');
    expect(order.upstream.redemption).toBe('none');
    expect(order.upstream.redeemedPoints).toBeUndefined();
    // What pages show of it is what they showed before.
    expect(redemptionSummary(order.upstream)).toEqual({
      redemption: state,
      redeemedPoints: state === 'sent' ? 200 : undefined,
    });
  });

  it('leaves a format 4 order as it is', () => {
    const order = upgradeOrder(format3('none'));
    const again = upgradeOrder(structuredClone(order));
    expect(again.upstream).toEqual(order.upstream);
  });
});
