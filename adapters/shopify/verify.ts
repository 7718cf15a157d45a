// Verification of a Shopify delivery: a pure function of the raw bytes and
// headers, done by @shopify/shopify-api's webhooks.validate.
//
// The library takes the body as a string and signs its UTF-8 encoding, which
// is the same bytes for any valid UTF-8 body. A body that is not valid UTF-8
// would not survive that round trip, so it is checked over its raw bytes here,
// so that an authentic one is still recognised (and dead-lettered), not
// refused as unauthentic.
import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import type { RawDelivery, Verification } from '../adapter.ts';
import { hmacBase64Matches } from '../shared/signature.ts';
import { normaliseShopifyHeaders, SHOPIFY_HEADER } from './headers.ts';

export interface ShopifyDelivery {
  webhookId: string;
  /** As Shopify writes it: orders/paid. */
  topic: string;
  shop: string;
  apiVersion: string;
  triggeredAt: string | undefined;
  body: Buffer;
  receivedAt: Date;
}

type Validate = ReturnType<typeof shopifyApi>['webhooks']['validate'];

/** A verifier bound to the app's client secret (config closure, as the library's own factories do). */
export function shopifyVerifier(apiSecretKey: string): (raw: RawDelivery) => Promise<Verification<ShopifyDelivery>> {
  const shopify = shopifyApi({
    apiSecretKey,
    apiKey: 'loyalty-bridge',
    hostName: 'localhost',
    apiVersion: ApiVersion.April26,
    isEmbeddedApp: false,
    logger: { level: LogSeverity.Error, log: async () => undefined },
  });
  const validate: Validate = shopify.webhooks.validate;

  return async (raw) => {
    const headers = normaliseShopifyHeaders(raw.headers);
    const text = raw.body.toString('utf8');
    const exactUtf8 = Buffer.byteLength(text, 'utf8') === raw.body.length && Buffer.from(text, 'utf8').equals(raw.body);

    if (!exactUtf8) {
      if (!hmacBase64Matches(raw.body, apiSecretKey, headers[SHOPIFY_HEADER.hmac])) return { ok: false, status: 401, reason: 'invalid_hmac' };
    } else {
      // Only Shopify's own headers go in: the library canonicalises every header it is given.
      const shopifyOnly = Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('x-shopify-')));
      const result = await validate({ rawBody: text, rawRequest: { headers: shopifyOnly, method: 'POST', url: '/' } as never, rawResponse: {} as never });
      if (!result.valid) {
        const reason = result.reason;
        if ('missingHeaders' in result) return { ok: false, status: 400, reason: `missing headers: ${result.missingHeaders.join(', ')}` };
        return { ok: false, status: 401, reason };
      }
    }

    const missing = [SHOPIFY_HEADER.topic, SHOPIFY_HEADER.shop, SHOPIFY_HEADER.apiVersion, SHOPIFY_HEADER.webhookId].filter((name) => !headers[name]);
    if (missing.length > 0) return { ok: false, status: 400, reason: `missing headers: ${missing.join(', ')}` };
    return {
      ok: true,
      delivery: {
        webhookId: headers[SHOPIFY_HEADER.webhookId] ?? '',
        topic: (headers[SHOPIFY_HEADER.topic] ?? '').toLowerCase(),
        shop: (headers[SHOPIFY_HEADER.shop] ?? '').toLowerCase(),
        apiVersion: headers[SHOPIFY_HEADER.apiVersion] ?? '',
        triggeredAt: headers[SHOPIFY_HEADER.triggeredAt],
        body: raw.body,
        receivedAt: raw.receivedAt,
      },
    };
  };
}

