// The real client against the real sandbox, over HTTP: one test per operation
// and per way the service says no, with the sandbox answering in each of the
// two shapes the service's replies come in.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LoyaltyClient, type ConversionInput } from '../../src/loyalty/client.ts';
import { LoyaltyAuthError, LoyaltyRejectedError, LoyaltyRetryableError } from '../../src/loyalty/errors.ts';
import { REPLY_STYLES } from '../../src/loyalty/protocol.ts';
import { SANDBOX_CREDENTIALS, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

/** A conversion the sandbox accepts, for tests about something else. */
const conversion = (orderId: string): ConversionInput => ({
  orderId,
  campaignId: 1,
  event: 'sale',
  referrer: { kind: 'code', value: 'ANNA-7' },
});

const ada = { name: 'Ada Lovelace', email: 'ada@example.com', mobile: '+447700900123' };

describe.each(REPLY_STYLES)('against the sandbox answering in the %s shape', (style) => {
  let sandbox: TestSandbox;
  let client: LoyaltyClient;

  beforeAll(async () => {
    sandbox = await startTestSandbox({ activities: { '1': 100, '7': 250 }, replyStyle: style });
    // A generous client limit: these tests are about operations, not pacing.
    client = new LoyaltyClient({
      baseUrl: sandbox.url,
      ...SANDBOX_CREDENTIALS,
      maxRetries: 0,
      rateLimitPerMinute: 100_000,
    });
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    sandbox.store.reset();
    sandbox.faults.configure({});
  });

  describe('earn', () => {
    it('earns the activity points for an order, pending until approved', async () => {
      const result = await client.earn({ activityId: '7', ...ada, orderId: '1001', description: 'Order #1001' });
      expect(result.data).toMatchObject({
        created: true,
        earning: { points: 250, status: 'pending', orderId: '1001' },
      });
      expect(sandbox.store.snapshot().earnings).toMatchObject([
        { activityId: '7', orderId: '1001', email: ada.email, description: 'Order #1001' },
      ]);
    });

    it('carries an order id above 2^53 digit for digit', async () => {
      const orderId = '820982911946154508123456789';
      await client.earn({ activityId: '1', ...ada, orderId });
      expect(sandbox.store.snapshot().earnings[0]?.orderId).toBe(orderId);
    });

    it('is an upsert on (activity, order): earning twice records one earning', async () => {
      await client.earn({ activityId: '1', ...ada, orderId: '1002' });
      const again = await client.earn({ activityId: '1', ...ada, name: 'Ada King', orderId: '1002' });
      expect(again.data).toMatchObject({ created: false });
      const { earnings } = sandbox.store.snapshot();
      expect(earnings).toHaveLength(1);
      expect(earnings[0]?.name).toBe('Ada King');
    });

    it('refuses an unknown activity with a permanent Invalid URL error', async () => {
      const error = await client.earn({ activityId: '99', ...ada }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LoyaltyRejectedError);
      expect(error).toMatchObject({
        kind: 'invalid_url',
        httpStatus: 402,
        serviceMessage: 'Invalid URL',
        retryable: false,
      });
      expect((error as Error).message).toContain('unknown activity 99');
    });

    it('refuses a malformed field with Invalid Source and names it', async () => {
      const error = await client
        .earn({ activityId: '1', ...ada, email: 'not-an-email' })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        kind: 'invalid_source',
        httpStatus: 400,
        serviceMessage: 'Invalid Source',
        detail: 'lp_email must be an e-mail address',
      });
    });
  });

  describe('updatePoints', () => {
    it('approves pending points, then cancels them', async () => {
      await client.earn({ activityId: '1', ...ada, orderId: '2001' });
      await client.updatePoints({ status: 'approve', orderId: '2001' });
      expect(sandbox.store.snapshot().earnings[0]?.status).toBe('approved');
      await client.updatePoints({ status: 'cancel', orderId: '2001' });
      expect(sandbox.store.snapshot().earnings[0]?.status).toBe('cancelled');
    });

    it('treats repeating the current state as a success that changes nothing', async () => {
      await client.earn({ activityId: '1', ...ada, orderId: '2002' });
      await client.updatePoints({ status: 'approve', orderId: '2002' });
      const again = await client.updatePoints({ status: 'approve', orderId: '2002' });
      expect(again.data).toMatchObject({ changed: 0 });
    });

    it('refuses to approve cancelled points', async () => {
      await client.earn({ activityId: '1', ...ada, orderId: '2003' });
      await client.updatePoints({ status: 'cancel', orderId: '2003' });
      await expect(client.updatePoints({ status: 'approve', orderId: '2003' })).rejects.toMatchObject({
        httpStatus: 400,
        retryable: false,
      });
    });

    it('refuses an order with no earned points', async () => {
      await expect(client.updatePoints({ status: 'approve', orderId: '404404' })).rejects.toMatchObject({
        httpStatus: 400,
        detail: 'no points were earned for lp_orderid 404404',
      });
    });
  });

  describe('redeem', () => {
    it('redeems up to the approved balance and no further', async () => {
      await client.earn({ activityId: '7', ...ada, orderId: '3001' });
      await client.updatePoints({ status: 'approve', orderId: '3001' });
      const redeemed = await client.redeem({ email: ada.email, points: 200 });
      expect(redeemed.data).toMatchObject({ balance: { approved: 250, redeemed: 200, available: 50 } });
      await expect(client.redeem({ mobile: ada.mobile, points: 51 })).rejects.toMatchObject({
        httpStatus: 400,
        detail: 'lp_points 51 exceeds the available balance of 50',
      });
    });

    it('does not count pending points as available', async () => {
      await client.earn({ activityId: '1', ...ada, orderId: '3002' });
      await expect(client.redeem({ email: ada.email, points: 1 })).rejects.toMatchObject({ httpStatus: 400 });
    });
  });

  describe('transactions', () => {
    beforeEach(async () => {
      await client.earn({ activityId: '7', ...ada, orderId: '4001' });
      await client.updatePoints({ status: 'approve', orderId: '4001' });
      await client.redeem({ email: ada.email, points: 100 });
      await client.updatePoints({ status: 'cancel', orderId: '4001' });
    });

    it('lists earned points with the service timestamp format', async () => {
      const { data } = await client.transactions({ email: ada.email, type: 'earn' });
      expect(data.earned).toMatchObject([{ orderId: '4001', points: 250, status: 'cancelled' }]);
      expect((data.earned as Array<{ createdAt: string }>)[0]?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      expect(data).not.toHaveProperty('redeemed');
    });

    it('lists redemptions alone', async () => {
      const { data } = await client.transactions({ mobile: ada.mobile, type: 'redeem' });
      expect(data.redeemed).toMatchObject([{ points: 100 }]);
      expect(data).not.toHaveProperty('earned');
    });

    it('gives earned and redeemed in separate fields for all', async () => {
      const { data } = await client.transactions({ email: ada.email, type: 'all' });
      expect(data).toHaveProperty('earned');
      expect(data).toHaveProperty('redeemed');
    });

    it('gives one combined history for ledger, where a cancelled approval can take the balance below zero', async () => {
      const { data } = await client.transactions({ email: ada.email, type: 'ledger' });
      const ledger = data.ledger as Array<{ type: string; change: number; balance: number }>;
      expect(ledger.map((entry) => entry.type)).toEqual(['earn', 'approve', 'redeem', 'reversal']);
      expect(ledger.at(-1)?.balance).toBe(-100);
      expect(data.balance).toMatchObject({ available: -100 });
    });
  });

  describe('conversions', () => {
    const referred: ConversionInput = {
      orderId: '5001',
      campaignId: 12,
      event: 'sale',
      referrer: { kind: 'code', value: 'ANNA-7' },
      refereeName: 'Grace Hopper',
      refereeEmail: 'grace@example.com',
      refereeMobile: '+12125550142',
      purchaseAmount: '89.50',
      customValue: 'shopify:shop.myshopify.com:5001',
    };

    it('adds a conversion with its referrer, event, amount and the referee, once per campaign and order', async () => {
      const first = await client.addConversion(referred);
      const second = await client.addConversion(referred);
      expect(first.data).toMatchObject({ created: true });
      expect(second.data).toMatchObject({ created: false });
      expect(sandbox.store.snapshot().conversions).toMatchObject([
        {
          orderId: '5001',
          campaignId: 12,
          event: 'sale',
          referrer: { field: 'referrer_code', value: 'ANNA-7' },
          refereeMobile: '+12125550142',
          purchaseAmount: '89.50',
          customValue: 'shopify:shop.myshopify.com:5001',
          status: 'pending',
        },
      ]);
    });

    it.each([
      ['email', 'anna@example.com', 'referrer_email'],
      ['mobile', '+447700900555', 'referrer_mobile'],
      ['unique_code', 'u-77', 'referrer_unique_code'],
    ] as const)('sends a %s referrer as the one field of its kind', async (kind, value, field) => {
      await client.addConversion({ ...referred, referrer: { kind, value } });
      expect(sandbox.store.snapshot().conversions[0]?.referrer).toEqual({ field, value });
    });

    it('approves, then rejects with a remark, each repeat changing nothing', async () => {
      await client.addConversion(referred);
      const approved = await client.confirmConversion({
        orderId: '5001',
        campaignId: 12,
        event: 'sale',
        decision: 'approve',
      });
      expect(approved.message).toBe('Order successfully approved');
      await client.confirmConversion({ orderId: '5001', campaignId: 12, event: 'sale', decision: 'approve' });
      expect(sandbox.store.snapshot().conversions[0]?.status).toBe('approved');
      const rejected = await client.confirmConversion({
        orderId: '5001',
        campaignId: 12,
        event: 'sale',
        decision: 'reject',
        remark: 'order refunded in full',
      });
      expect(rejected.message).toBe('Order successfully canceled');
      expect(sandbox.store.snapshot().conversions[0]).toMatchObject({
        status: 'rejected',
        remark: 'order refunded in full',
      });
    });

    it('reads "conversion does not exist", sent on HTTP 200, as its own permanent error', async () => {
      const error = await client
        .confirmConversion({ orderId: '5999', campaignId: 12, event: 'sale', decision: 'reject' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LoyaltyRejectedError);
      expect(error).toMatchObject({
        kind: 'not_found',
        httpStatus: 200,
        serviceMessage: 'conversion does not exist',
        retryable: false,
      });
    });

    it('reads "Parameters missing", sent on HTTP 200, as permanent at the first answer', async () => {
      const error = await client
        .confirmConversion({ orderId: '', campaignId: 12, event: 'sale', decision: 'approve' })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        kind: 'invalid_source',
        httpStatus: 200,
        serviceMessage: 'Parameters missing',
        detail: 'order_id is required',
        retryable: false,
      });
    });
  });

  describe('errors', () => {
    it('turns wrong credentials into an auth error that says what to check and never the key', async () => {
      const wrong = new LoyaltyClient({
        baseUrl: sandbox.url,
        apiKey: 'sk_live_wrong_1234',
        brandId: SANDBOX_CREDENTIALS.brandId,
        maxRetries: 0,
      });
      const error = await wrong.transactions({ email: ada.email, type: 'all' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LoyaltyAuthError);
      expect(error).toMatchObject({ httpStatus: 401, serviceMessage: 'Invalid auth', retryable: false });
      expect((error as Error).message).toContain('LOYALTY_API_KEY');
      expect(JSON.stringify(error) + (error as Error).message + (error as Error).stack).not.toContain(
        'sk_live_wrong_1234',
      );
    });

    it('reads a failure on HTTP 200 as an error', async () => {
      sandbox.faults.configure({ forced: { status: 200, message: 'Invalid Source' } });
      const error = await client.addConversion(conversion('6001')).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LoyaltyRejectedError);
      expect(error).toMatchObject({ httpStatus: 200, kind: 'invalid_source', retryable: false });
    });

    it('does not itself retry a failure on HTTP 200 in words the service does not document: the worker counts those', async () => {
      sandbox.faults.configure({ forced: { status: 200, message: 'Temporarily not possible', count: 5 } });
      const patient = new LoyaltyClient({
        baseUrl: sandbox.url,
        ...SANDBOX_CREDENTIALS,
        maxRetries: 3,
        minRetryDelayMs: 1,
      });
      await expect(patient.addConversion(conversion('6005'))).rejects.toMatchObject({
        kind: 'unknown_failure',
        retryable: true,
        serviceMessage: 'Temporarily not possible',
      });
      expect(sandbox.faults.settings.forcedLeft).toBe(4);
    });

    it('marks 5xx as retryable', async () => {
      sandbox.faults.configure({ forced: { status: 503 } });
      await expect(client.addConversion(conversion('6002'))).rejects.toBeInstanceOf(LoyaltyRetryableError);
    });

    it('marks a timeout as retryable', async () => {
      sandbox.faults.configure({ hangRate: 1, hangMs: 2_000 });
      const impatient = new LoyaltyClient({
        baseUrl: sandbox.url,
        ...SANDBOX_CREDENTIALS,
        maxRetries: 0,
        timeoutMs: 200,
      });
      await expect(impatient.addConversion(conversion('6003'))).rejects.toMatchObject({
        kind: 'network',
        retryable: true,
      });
    });

    it('marks a refused connection as retryable', async () => {
      const nowhere = new LoyaltyClient({ baseUrl: 'http://127.0.0.1:1', ...SANDBOX_CREDENTIALS, maxRetries: 0 });
      await expect(nowhere.addConversion(conversion('6004'))).rejects.toMatchObject({
        kind: 'network',
        retryable: true,
      });
      expect(sandbox.store.snapshot().conversions).toHaveLength(0);
    });
  });
});
