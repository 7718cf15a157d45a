// Exact fault sequences that a server cannot be asked to produce on cue: nock.
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LoyaltyClient, parseRetryAfter, type AttemptReport } from '../../src/loyalty/client.ts';

const BASE = 'http://loyalty.test';
const PATH = '/api/v1/conversion/add';
const ok = { response: { status: 'success', message: 'Conversion recorded', data: { created: true } } };
const failure = (message: string, detail: string) => ({ response: { status: 'failure', message, data: { detail } } });

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function clientRecordingAttempts(options: { minRetryDelayMs?: number } = {}) {
  const attempts: Array<AttemptReport & { at: number }> = [];
  const client = new LoyaltyClient({
    baseUrl: BASE,
    apiKey: 'k',
    brandId: 'b',
    maxRetries: 4,
    minRetryDelayMs: options.minRetryDelayMs ?? 10,
    maxRetryDelayMs: 50,
    rateLimitPerMinute: 100_000,
    onAttempt: (report) => attempts.push({ ...report, at: Date.now() }),
  });
  return { client, attempts };
}

describe('retries', () => {
  it('succeeds on the third attempt after 503, 503', async () => {
    nock(BASE).post(PATH).query(true).times(2).reply(503, failure('Service unavailable', 'try later')).post(PATH).query(true).reply(200, ok);
    const { client, attempts } = clientRecordingAttempts();
    const result = await client.addConversion({ orderId: '1', campaignId: 1 });
    expect(result.attempts).toBe(3);
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['unavailable', 'unavailable', 'success']);
  });

  it('tries a 400 once and gives the service message', async () => {
    nock(BASE).post(PATH).query(true).reply(400, failure('Invalid Source', 'campaign_id is required'));
    const { client, attempts } = clientRecordingAttempts();
    await expect(client.addConversion({ orderId: '1', campaignId: 1 })).rejects.toMatchObject({
      httpStatus: 400,
      serviceMessage: 'Invalid Source',
      detail: 'campaign_id is required',
      retryable: false,
    });
    expect(attempts).toHaveLength(1);
  });

  it('waits as long as Retry-After asks before trying again', async () => {
    nock(BASE).post(PATH).query(true).reply(429, failure('Rate limit exceeded', 'slow down'), { 'Retry-After': '1' }).post(PATH).query(true).reply(200, ok);
    const { client, attempts } = clientRecordingAttempts();
    await client.addConversion({ orderId: '1', campaignId: 1 });
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['rate_limited', 'success']);
    const [first, second] = attempts;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('retries a dropped connection', async () => {
    nock(BASE).post(PATH).query(true).replyWithError({ code: 'ECONNRESET', message: 'socket hang up' }).post(PATH).query(true).reply(200, ok);
    const { client, attempts } = clientRecordingAttempts();
    await client.addConversion({ orderId: '1', campaignId: 1 });
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['network', 'success']);
  });

  it('retries a reply that is not the service envelope, such as a proxy error page', async () => {
    nock(BASE).post(PATH).query(true).reply(200, '<html>Bad gateway</html>').post(PATH).query(true).reply(200, ok);
    const { client, attempts } = clientRecordingAttempts();
    await client.addConversion({ orderId: '1', campaignId: 1 });
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['unavailable', 'success']);
  });

  it('gives up after the configured retries with the last error', async () => {
    nock(BASE).post(PATH).query(true).times(5).reply(500, failure('Internal error', 'boom'));
    const { client, attempts } = clientRecordingAttempts();
    await expect(client.addConversion({ orderId: '1', campaignId: 1 })).rejects.toMatchObject({ httpStatus: 500, retryable: true });
    expect(attempts).toHaveLength(5);
  });
});

describe('what goes on the wire', () => {
  it('sends the API headers, format=JSON and the lp_ names, with the order id as a string', async () => {
    let seen: { headers: Record<string, string | string[]>; body: unknown; path: string } | undefined;
    nock(BASE)
      .post('/loyalty/v1/earn/1')
      .query({ format: 'JSON' })
      .reply(function (path, body) {
        seen = { headers: this.req.headers, body, path };
        return [200, ok];
      });
    const { client } = clientRecordingAttempts();
    await client.earn({ activityId: '1', name: 'Ada', email: 'ada@example.com', mobile: '+447700900123', orderId: '820982911946154508' });
    expect(seen?.headers).toMatchObject({ accept: 'application/json', 'content-type': 'application/json', 'x-api-key': 'k', 'x-brand-id': 'b' });
    expect(seen?.body).toEqual({ lp_name: 'Ada', lp_email: 'ada@example.com', lp_mobile: '+447700900123', lp_orderid: '820982911946154508' });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  it.each([
    ['3', 3_000],
    ['0', 0],
    ['Sat, 21 Nov 2026 10:00:05 GMT', 5_000],
    ['soon', undefined],
    [undefined, undefined],
  ])('reads %s as %s ms', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });
});
