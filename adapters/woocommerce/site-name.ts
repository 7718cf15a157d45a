// A WooCommerce store's name: its WordPress site's title, public in the REST API's index (GET <home>/wp-json/,
// `name`; WordPress's REST API handbook, "Discovery"), read without the store's key, through the outbound policy
// (no redirect to another host; a connected store's address is a user's), and briefly: a store that does not
// answer stays nameless, and its page says its address.
import { outboundGot, type OutboundPolicy } from '../../src/net/outbound.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';
import { asRecord, parseJsonLossless } from '../shared/json.ts';

const INDEX_TIMEOUT_MS = 5_000;
/** More than a title ever needs: the store's server decides what it sends, and a whole index runs to megabytes. */
const INDEX_MAX_BYTES = 64 * 1024;

/** The few entities WordPress writes a title with (it keeps blogname through esc_html): the page shows text, never HTML. */
const NAMED: ReadonlyMap<string, string> = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
  ['nbsp', ' '],
]);
const decodeEntities = (text: string) =>
  text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (entity, body: string) => {
    const code =
      body.startsWith('#x') || body.startsWith('#X')
        ? parseInt(body.slice(2), 16)
        : body.startsWith('#')
          ? Number(body.slice(1))
          : undefined;
    if (code === undefined) return NAMED.get(body.toLowerCase()) ?? entity;
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });

/** The site's title from its REST index at `url` (tests: `requestUrl`); undefined when it gives none. */
export async function readWooSiteName(site: {
  url: string;
  requestUrl: string | undefined;
  outbound: OutboundPolicy;
}): Promise<string | undefined> {
  const http = outboundGot(site.outbound, {
    timeout: { request: INDEX_TIMEOUT_MS },
    retry: { limit: 0 },
    throwHttpErrors: false,
    responseType: 'text',
  });
  // `_fields`: the index's title alone (the REST API's global parameter), not every route the site has.
  const request = http(`${trimTrailing(site.requestUrl ?? site.url, '/')}/wp-json/?_fields=name`);
  void request.on('downloadProgress', ({ transferred }: { transferred: number }) => {
    if (transferred > INDEX_MAX_BYTES) request.cancel();
  });
  const response = await request;
  if (response.statusCode !== 200) return undefined;
  const parsed = parseJsonLossless(String(response.body));
  const name = parsed.ok ? asRecord(parsed.value).name : undefined;
  return typeof name === 'string' ? decodeEntities(name) : undefined;
}

/** A store's address as a person reads it, without the port a test or a proxy adds: store.example, store.example/shop. */
export const wooStoreLabel = (shop: string) => shop.replace(/:\d+(?=\/|$)/, '');
