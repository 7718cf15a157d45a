// A stand-in for a Shopify store's own pages with the theme app extension (extensions/loyalty-theme) in them,
// and for Shopify's app proxy in front of the bridge, on one local server, as the browser sees a real store:
// the pages, /apps/loyalty/* and the sign-in page all on the store's own origin.
//
// - The blocks' Liquid is rendered by adapters/shopify/theme-blocks.ts's tiny substitution, NOT by Shopify's Liquid.
// - The proxy does what Shopify documents ("Authenticate app proxies"): it forwards /apps/loyalty/<path> to the
//   bridge's /shopify/storefront/<path> with the request's own method, body and query, plus shop,
//   logged_in_customer_id (from the store's session: here its "signed-in" cookie, empty for a guest), path_prefix
//   and timestamp, signed
//   (test/helpers/shopify-proxy-signer.ts). It forwards none of the browser's cookies or headers.
// - It forwards only while the app holds write_app_proxy on the shop ("Configuring an app proxy requires the
//   write_app_proxy access scope": https://shopify.dev/apps/build/online-store/display-dynamic-data, "About app
//   proxies and dynamic data"). Shopify does not say what the store answers otherwise; the stand-in takes the worst
//   case, the store's own 404 page, as for any /apps/ path no proxy is set up for, and the bridge is never asked.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXTENSION_DIR, readExtension, renderBlock, schemaDefaults } from '../../adapters/shopify/theme-blocks.ts';
import { proxiedQuery } from './shopify-proxy-signer.ts';

export { EXTENSION_DIR, renderBlock, schemaDefaults };

/** The store session's cookie: the customer's id while they are signed in. */
export const SIGNED_IN_COOKIE = 'store_customer';
const PATH_PREFIX = '/apps/loyalty';
/** The store's own page for an address it has nothing at. */
const NOT_FOUND_PAGE = '<!doctype html><title>404 Not Found</title><h1>Page not found</h1>';

const read = readExtension;

export interface StorePage {
  /** The template: what the earn block reads its total from. */
  template: 'index' | 'product' | 'cart';
  /** The product's price or the cart's total, in the currency's subunits (cents), as Liquid gives them. */
  total?: number;
  /** The launcher (the app embed, turned on) and the earn block: both unless told. */
  embed?: boolean;
  earn?: boolean;
}

export interface ThemeStore {
  url: string;
  /** The script's and stylesheet's address as the blocks name them (asset_url). */
  assetBase: string;
  close(): Promise<void>;
}

/** What a page of a store of this theme holds: a header, some content, then the blocks as Shopify places them. */
export function storePageHtml(page: StorePage, assetBase: string): string {
  const launcherSource = read('blocks/points-launcher.liquid');
  const earnSource = read('blocks/earn-points.liquid');
  const base = {
    routes: { account_login_url: '/account/login' },
    template: { name: page.template },
    product: { selected_or_first_available_variant: { price: page.total } },
    cart: { total_price: page.total },
  };
  const block = (source: string, id: string) =>
    renderBlock(
      source,
      { ...base, block: { id, settings: schemaDefaults(source), shopify_attributes: '' } },
      assetBase,
    );
  const withEmbed = page.embed !== false;
  const withEarn = page.earn !== false && page.template !== 'index';
  const price = page.total === undefined ? '' : `$${(page.total / 100).toFixed(2)}`;
  const main =
    page.template === 'product'
      ? `<h1>Compiler</h1><p class="price">${price}</p>${withEarn ? block(earnSource, 'earn-1') : ''}<button type="button">Add to cart</button>`
      : page.template === 'cart'
        ? `<h1>Your cart</h1><p>Total ${price}</p>${withEarn ? block(earnSource, 'earn-1') : ''}<button type="button">Check out</button>`
        : `<h1>Hopper &amp; Co.</h1><p>Tools for people who write programs: compilers, manuals and coffee.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hopper &amp; Co.</title>
<meta name="description" content="A store of tools for people who write programs.">
<style>body{margin:0;font-family:system-ui,sans-serif;color:#111827}header,main{padding:1rem 2rem;max-width:60rem;margin:0 auto}header{border-bottom:1px solid #e5e7eb}.price{font-size:1.5rem}</style>
${withEmbed || withEarn ? `<link rel="stylesheet" href="${assetBase}loyalty.css">` : ''}
</head>
<body>
<header><a href="/">Hopper &amp; Co.</a> · <a href="/products/compiler">Compiler</a> · <a href="/cart">Cart</a> · <a href="/account/login">Sign in</a></header>
<main>${main}</main>
${withEmbed ? block(launcherSource, 'launcher-1') : ''}
</body>
</html>`;
}

const cookieOf = (request: IncomingMessage, name: string) =>
  (request.headers.cookie ?? '')
    .split(';')
    .map((pair) => pair.trim().split('='))
    .find(([key]) => key === name)?.[1];

/**
 * The store on 127.0.0.1: `/` (index), `/products/compiler`, `/cart` (pages of `pages`), `/account/login`,
 * `/assets/<file>` (the extension's assets, where a page's assetBase is local), and the app proxy at
 * /apps/loyalty/* when `bridge` is given.
 */
export async function startThemeStore(options: {
  shop: string;
  pages: { index?: StorePage; product?: StorePage; cart?: StorePage };
  /** The bridge behind the proxy, and the scopes the app holds on the shop now (the fake Shopify's, read per request). */
  bridge?: { url: string; secret: string; grantedScopes: () => string };
  /** Where asset_url points: Shopify's CDN (a test routes it) or this server's /assets/. */
  assetBase?: string;
}): Promise<ThemeStore> {
  let assetBase = options.assetBase ?? '';
  const answer = (response: ServerResponse, status: number, type: string, body: string | Buffer) => {
    response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    response.end(body);
  };
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://store.invalid');
      if (url.pathname.startsWith(`${PATH_PREFIX}/`) && options.bridge) {
        const granted = options.bridge.grantedScopes().split(',');
        if (!granted.map((scope) => scope.trim()).includes('write_app_proxy'))
          return answer(response, 404, 'text/html', NOT_FOUND_PAGE);
        const extra = [...url.searchParams].map(([key, value]) => [key, value] as const);
        const query = proxiedQuery(
          { shop: options.shop, customerId: cookieOf(request, SIGNED_IN_COOKIE) ?? '', extra, pathPrefix: PATH_PREFIX },
          options.bridge.secret,
        );
        const path = url.pathname.slice(PATH_PREFIX.length);
        // The request's own method and body go on, as Shopify's proxy forwards a POST.
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks);
        const forwarded = await fetch(`${options.bridge.url}/shopify/storefront${path}?${query}`, {
          method: request.method ?? 'GET',
          ...(body.length > 0 ? { body } : {}),
        });
        return answer(
          response,
          forwarded.status,
          forwarded.headers.get('content-type') ?? 'text/plain',
          Buffer.from(await forwarded.arrayBuffer()),
        );
      }
      const asset = /^\/assets\/(loyalty\.(js|css))$/.exec(url.pathname);
      if (asset)
        return answer(
          response,
          200,
          asset[2] === 'js' ? 'text/javascript' : 'text/css',
          readFileSync(`${EXTENSION_DIR}assets/${asset[1]}`),
        );
      if (url.pathname === '/account/login')
        return answer(response, 200, 'text/html', '<!doctype html><title>Sign in</title><h1>Sign in</h1>');
      const page =
        url.pathname === '/'
          ? options.pages.index
          : url.pathname === '/products/compiler'
            ? options.pages.product
            : url.pathname === '/cart'
              ? options.pages.cart
              : undefined;
      if (!page) return answer(response, 404, 'text/plain', 'not found');
      return answer(response, 200, 'text/html; charset=utf-8', storePageHtml(page, assetBase));
    })().catch((error: unknown) => answer(response, 500, 'text/plain', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (!options.assetBase) assetBase = `${url}/assets/`;
  return {
    url,
    assetBase,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
