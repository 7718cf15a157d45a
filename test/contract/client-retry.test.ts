// Exact fault sequences that a server cannot be asked to produce on cue: nock.
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LoyaltyClient, parseRetryAfter, type AttemptReport, type ConversionInput } from '../../src/loyalty/client.ts';
import { LoyaltyConfigError } from '../../src/loyalty/errors.ts';

// https: the client sends its API key over nothing else (but to this machine).
const BASE = 'https://loyalty.test';
const PATH = '/api/v1/conversion/add';
const ok = { response: { status: 'success', message: 'Conversion recorded', data: { created: true } } };
const failure = (message: string, detail: string) => ({ response: { status: 'failure', message, data: { detail } } });
const flat = (ok: boolean, message: string, extra: Record<string, unknown> = {}) => ({
  status: ok ? 200 : 400,
  response: ok ? 'success' : 'fail',
  message,
  ...extra,
});
const conversion: ConversionInput = {
  orderId: '1',
  campaignId: 1,
  event: 'sale',
  referrer: { kind: 'code', value: 'ANNA-7' },
};

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
    nock(BASE)
      .post(PATH)
      .query(true)
      .times(2)
      .reply(503, failure('Service unavailable', 'try later'))
      .post(PATH)
      .query(true)
      .reply(200, ok);
    const { client, attempts } = clientRecordingAttempts();
    const result = await client.addConversion(conversion);
    expect(result.attempts).toBe(3);
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['unavailable', 'unavailable', 'success']);
  });

  it('tries a 400 once and gives the service message', async () => {
    nock(BASE).post(PATH).query(true).reply(400, failure('Invalid Source', 'campaign_id is required'));
    const { client, attempts } = clientRecordingAttempts();
    await expect(client.addConversion(conversion)).rejects.toMatchObject({
      httpStatus: 400,
      serviceMessage: 'Invalid Source',
      detail: 'campaign_id is required',
      retryable: false,
    });
    expect(attempts).toHaveLength(1);
  });

  it('waits as long as Retry-After asks before trying again', async () => {
    nock(BASE)
      .post(PATH)
      .query(true)
      .reply(429, failure('Rate limit exceeded', 'slow down'), { 'Retry-After': '1' })
      .post(PATH)
      .query(true)
      .reply(200, ok);
    const { client, attempts } = clientRecordingAttempts();
    await client.addConversion(conversion);
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['rate_limited', 'success']);
    const [first, second] = attempts;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('retries a dropped connection', async () => {
    nock(BASE)
      .post(PATH)
      .query(true)
      .replyWithError({ code: 'ECONNRESET', message: 'socket hang up' })
      .post(PATH)
      .query(true)
      .reply(200, ok);
    const { client, attempts } = clientRecordingAttempts();
    await client.addConversion(conversion);
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['network', 'success']);
  });

  it('retries a reply that is not the service envelope, such as a proxy error page', async () => {
    nock(BASE).post(PATH).query(true).reply(200, '<html>Bad gateway</html>').post(PATH).query(true).reply(200, ok);
    const { client, attempts } = clientRecordingAttempts();
    await client.addConversion(conversion);
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['unavailable', 'success']);
  });

  it('gives up after the configured retries with the last error', async () => {
    nock(BASE).post(PATH).query(true).times(5).reply(500, failure('Internal error', 'boom'));
    const { client, attempts } = clientRecordingAttempts();
    await expect(client.addConversion(conversion)).rejects.toMatchObject({ httpStatus: 500, retryable: true });
    expect(attempts).toHaveLength(5);
  });
});

describe('reading what the service sends', () => {
  // Replies as they are seen: the documented envelope, the flat shape of /api/v1, and others, read leniently.
  const successes: Array<[string, number, unknown, string]> = [
    ['the envelope', 200, ok, 'Conversion recorded'],
    [
      'the flat shape',
      200,
      flat(true, 'Conversion added', { referrer_details: { referrer_name: 'Anna' } }),
      'Conversion added',
    ],
    [
      'the envelope with fields nobody documented',
      200,
      {
        response: { status: 'Success', message: 'ok', data: { created: true, extra: [1, 2] }, version: 3 },
        trace: 'x',
      },
      'ok',
    ],
    ['a flat reply with a status word and no response', 200, { status: 'success', message: 'done' }, 'done'],
    ['a 2xx JSON object with no sign of failure', 201, { id: 9 }, ''],
  ];
  it.each(successes)('reads a success in %s', async (_name, status, body, message) => {
    nock(BASE)
      .post(PATH)
      .query(true)
      .reply(status, body as nock.Body);
    const { client, attempts } = clientRecordingAttempts();
    await expect(client.addConversion(conversion)).resolves.toMatchObject({ message, attempts: 1 });
    expect(attempts).toHaveLength(1);
  });

  it('passes the flat shape’s own fields through as data', async () => {
    nock(BASE)
      .post(PATH)
      .query(true)
      .reply(200, flat(true, 'Conversion added', { referrer_details: { referrer_name: 'Anna' } }));
    const { client } = clientRecordingAttempts();
    expect((await client.addConversion(conversion)).data).toEqual({ referrer_details: { referrer_name: 'Anna' } });
  });

  // The documented refusals end at the first answer, whatever the shape and HTTP status.
  const permanent: Array<[string, number, unknown, string]> = [
    [
      '"Parameters missing" on 200, flat',
      200,
      { status: 400, response: 'fail', message: 'Parameters missing' },
      'invalid_source',
    ],
    ['"Parameters missing" on 200, envelope', 200, failure('Parameters missing', ''), 'invalid_source'],
    [
      '"conversion does not exist" on 200, flat',
      200,
      { status: 200, response: 'fail', message: 'conversion does not exist' },
      'not_found',
    ],
    ['"Invalid Source" on 200, flat', 200, flat(false, 'Invalid Source'), 'invalid_source'],
    ['"Invalid URL" on 200, envelope', 200, failure('Invalid URL', 'unknown activity'), 'invalid_url'],
    ['a missing required field, on 200', 200, flat(false, 'referee_email is required'), 'invalid_source'],
    ['a flat 402 on 200', 200, { status: 402, response: 'fail', message: 'Invalid URL' }, 'invalid_url'],
  ];
  it.each(permanent)('gives up on %s at once, with the service message', async (_name, status, body, kind) => {
    nock(BASE)
      .post(PATH)
      .query(true)
      .reply(status, body as nock.Body);
    const { client, attempts } = clientRecordingAttempts();
    await expect(client.addConversion(conversion)).rejects.toMatchObject({
      kind,
      retryable: false,
      httpStatus: status,
    });
    expect(attempts).toHaveLength(1);
  });

  it('reads a flat "Invalid auth" on 200 as refused credentials', async () => {
    nock(BASE).post(PATH).query(true).reply(200, { status: 401, response: 'fail', message: 'Invalid auth' });
    const { client } = clientRecordingAttempts();
    await expect(client.addConversion(conversion)).rejects.toMatchObject({ kind: 'invalid_auth', retryable: false });
  });

  it('reports a redirect from the base URL as a configuration error naming the address to use', async () => {
    nock('https://ref-r.test')
      .post(PATH)
      .query(true)
      .reply(301, '', { location: 'https://www.ref-r.test/api/v1/conversion/add?format=JSON' });
    const client = new LoyaltyClient({
      baseUrl: 'https://ref-r.test',
      apiKey: 'k',
      brandId: 'b',
      maxRetries: 4,
      minRetryDelayMs: 1,
    });
    const error = await client.addConversion(conversion).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LoyaltyConfigError);
    expect(error).toMatchObject({ kind: 'redirected', retryable: false, httpStatus: 301, certainlyNotApplied: true });
    expect((error as Error).message).toContain('Set LOYALTY_BASE_URL=https://www.ref-r.test and restart');
  });

  it('sends nothing over plain http to another machine: a configuration error, tried once', async () => {
    const scope = nock('http://loyalty.test').post(PATH).query(true).reply(200, ok);
    const attempts: AttemptReport[] = [];
    const client = new LoyaltyClient({
      baseUrl: 'http://loyalty.test',
      apiKey: 'k',
      brandId: 'b',
      maxRetries: 4,
      minRetryDelayMs: 1,
      onAttempt: (attempt) => attempts.push(attempt),
    });
    const error = await client.addConversion(conversion).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'refused_address', retryable: false, certainlyNotApplied: true });
    expect((error as Error).message).toContain('http://loyalty.test/api/v1/conversion/add is plain http');
    expect(scope.isDone()).toBe(false);
    expect(attempts).toHaveLength(1);
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
    await client.earn({
      activityId: '1',
      name: 'Ada',
      email: 'ada@example.com',
      mobile: '+447700900123',
      orderId: '820982911946154508',
    });
    expect(seen?.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      'x-api-key': 'k',
      'x-brand-id': 'b',
    });
    expect(seen?.body).toEqual({
      lp_name: 'Ada',
      lp_email: 'ada@example.com',
      lp_mobile: '+447700900123',
      lp_orderid: '820982911946154508',
    });
  });

  it('sends a conversion with exactly one referrer field and the amount as exact text', async () => {
    let body: unknown;
    nock(BASE)
      .post(PATH)
      .query({ format: 'JSON' })
      .reply((_path, sent) => {
        body = sent;
        return [200, ok];
      });
    const { client } = clientRecordingAttempts();
    await client.addConversion({
      ...conversion,
      orderId: '820982911946154508',
      referrer: { kind: 'email', value: 'anna@example.com' },
      refereeMobile: '+447700900123',
      purchaseAmount: '1234567.89',
      customValue: 'woocommerce:shop:9',
    });
    expect(body).toEqual({
      order_id: '820982911946154508',
      campaign_id: 1,
      event: 'sale',
      referrer_email: 'anna@example.com',
      referee_mobile: '+447700900123',
      purchase_amount: '1234567.89',
      custom_value: 'woocommerce:shop:9',
    });
  });

  it('confirms with status 1 to approve and 2 to reject', async () => {
    const bodies: unknown[] = [];
    nock(BASE)
      .post('/api/v1/conversion/confirm')
      .query(true)
      .times(2)
      .reply((_path, sent) => {
        bodies.push(sent);
        return [200, flat(true, 'Order successfully approved')];
      });
    const { client } = clientRecordingAttempts();
    await client.confirmConversion({ orderId: '5', campaignId: 3, event: 'sale', decision: 'approve' });
    await client.confirmConversion({
      orderId: '5',
      campaignId: 3,
      event: 'sale',
      decision: 'reject',
      remark: 'order cancelled',
    });
    expect(bodies).toEqual([
      { order_id: '5', campaign_id: 3, event: 'sale', status: 1 },
      { order_id: '5', campaign_id: 3, event: 'sale', status: 2, remark: 'order cancelled' },
    ]);
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
