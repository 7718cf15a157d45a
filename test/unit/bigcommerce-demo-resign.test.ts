// The demo's resync reads its BigCommerce deliveries again, minutes after it sent them (src/composition/demo-source.ts).
// Standard Webhooks refuses a signature over five minutes old, so "Read again" failed on a demo older than that
// (issue 68's walk-through): the demo signs the same message again at the time of reading.
import { describe, expect, it } from 'vitest';
import { bigCommerceDemo } from '../../adapters/bigcommerce/demo.ts';
import { bigCommerceVerifier } from '../../adapters/bigcommerce/verify.ts';

const SECRET = 'demo-secret-for-this-run';
const verify = bigCommerceVerifier({ clientSecrets: [SECRET], headerSecretsFor: async () => [] });
const [order] = bigCommerceDemo.orders;

describe('a BigCommerce demo delivery read again later', () => {
  const at = new Date(Date.now() - 10 * 60_000).toISOString();
  const sent = bigCommerceDemo.delivery({
    id: 1,
    number: 1001,
    order: order!,
    step: order!.steps[0]!,
    at,
    secret: SECRET,
    sequence: 1,
  });

  it('is refused as sent, ten minutes on: its timestamp is too old', async () => {
    const verified = await verify({ body: Buffer.from(sent.body), headers: sent.headers, receivedAt: new Date() });
    expect(verified).toMatchObject({ ok: false, reason: expect.stringContaining('too old') });
  });

  it('reads as the same message once signed again now, and as no other shop’s secret', async () => {
    const headers = bigCommerceDemo.resigned!(sent, SECRET, new Date());
    expect(headers['webhook-id']).toBe(sent.headers['webhook-id']);
    const verified = await verify({ body: Buffer.from(sent.body), headers, receivedAt: new Date() });
    expect(verified.ok).toBe(true);
    const forged = bigCommerceDemo.resigned!(sent, 'another-secret', new Date());
    expect((await verify({ body: Buffer.from(sent.body), headers: forged, receivedAt: new Date() })).ok).toBe(false);
  });
});
