// Our Shopify verifier against @shopify/shopify-api's webhooks.validate, the
// oracle: on any UTF-8 body, any secret and any set of headers, both say the
// same (authentic or not, complete or not), except that ours also refuses a
// body that is not a JSON object (a session token or an App URL query is
// signed with the same secret, and is never a webhook).
import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shopifyVerifier } from '../../adapters/shopify/verify.ts';
import { shopifyHeaders } from '../helpers/shopify.ts';

const SECRET = 'oracle-secret';
const library = shopifyApi({
  apiSecretKey: SECRET,
  apiKey: 'oracle',
  hostName: 'localhost',
  apiVersion: ApiVersion.April26,
  isEmbeddedApp: false,
  logger: { level: LogSeverity.Error, log: async () => undefined },
});
const ours = shopifyVerifier([SECRET]);

async function libraryVerdict(body: string, headers: Record<string, string>): Promise<number> {
  const result = await library.webhooks.validate({
    rawBody: body,
    rawRequest: { headers, method: 'POST', url: '/' } as never,
    rawResponse: {} as never,
  });
  if (result.valid) return 200;
  return 'missingHeaders' in result ? 400 : 401;
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

const OPTIONAL = [
  'x-shopify-topic',
  'x-shopify-shop-domain',
  'x-shopify-api-version',
  'x-shopify-webhook-id',
  'x-shopify-hmac-sha256',
];

describe('the Shopify verifier', () => {
  it('agrees with webhooks.validate on random bodies, secrets and missing headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'grapheme', minLength: 0, maxLength: 300 }),
          fc.json({ maxDepth: 3 }),
          fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })).map((object) => JSON.stringify(object)),
        ),
        fc.constantFrom(SECRET, 'another-secret'),
        fc.subarray(OPTIONAL),
        async (body, signedWith, dropped) => {
          const all = Object.fromEntries(
            Object.entries(shopifyHeaders({ topic: 'orders/paid', body, secret: signedWith })).map(([name, value]) => [
              name.toLowerCase(),
              value,
            ]),
          );
          const headers = Object.fromEntries(Object.entries(all).filter(([name]) => !dropped.includes(name)));
          const mine = await ours({ body: Buffer.from(body, 'utf8'), headers, receivedAt: new Date() });
          const library = await libraryVerdict(body, headers);
          // The library's 401 stays ours; what it lets through is ours only when the body is a JSON object.
          expect(mine.ok ? 200 : mine.status).toBe(library === 401 || isJsonObject(body) ? library : 401);
        },
      ),
      { numRuns: 300 },
    );
  });
});
