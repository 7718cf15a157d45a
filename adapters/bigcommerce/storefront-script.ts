// The widget on a BigCommerce store (StorefrontParts.widget): one script of ours in the store's Script Manager,
// whose src is the bridge's widget.js (storefront-widget.ts), kept with the Scripts API (BigCommerce's docs:
// reference/scripts.v3.yml, docs/integrations/scripts.mdx). An app sees only the scripts it created, and keeps no
// id of its own: ours is the one with our name whose src has the widget's path, so a store whose merchant deleted
// it in Script Manager, or one that holds two after a race, is put right by the next put.
import type { StorefrontParts } from '../../src/core/platform-module.ts';
import { asRecord } from '../shared/json.ts';
import { BigCommerceApiError, type BigCommerceApi } from './admin-api.ts';

/** What the merchant reads in Script Manager. */
export const SCRIPT_NAME = 'Loyalty points';
const SCRIPT_DESCRIPTION = "The customer's points launcher, from loyalty-bridge: balance, rewards and ways to earn.";
/** The path of the widget's src (its route, below the module's prefix), whatever the host and query. */
export const WIDGET_PATH = '/bigcommerce/storefront/widget.js';
const PAGE_SIZE = 50;

/** The script as we create it. */
function scriptBody(src: string) {
  return {
    name: SCRIPT_NAME,
    description: SCRIPT_DESCRIPTION,
    src,
    kind: 'src',
    // Removed by BigCommerce itself when the app is uninstalled or its token revoked.
    auto_uninstall: true,
    load_method: 'defer',
    // The docs advise the footer: every theme renders {{footer.scripts}}.
    location: 'footer',
    // Every page but checkout and order confirmation: those need the Checkout Content scope, and points are not
    // spent there (a code is typed at checkout).
    visibility: 'storefront',
    // 'essential': on a store with its cookie consent banner on, BigCommerce runs a functional, analytics or
    // targeting script only once the shopper allowed that category, and assumes nothing allowed until the shopper
    // answers (https://developer.bigcommerce.com/docs/rest-storefront/consent); an 'unknown' one (the default)
    // never ("Scripts with an unknown consent category do not display on stores with customer cookie consent
    // banners enabled": consent_category, https://developer.bigcommerce.com/docs/rest-management/scripts). Only an
    // essential script runs for every shopper, and the launcher is how the store shows a customer their points; it
    // sets no cookie and tracks nothing. A merchant may still change the category in Script Manager.
    consent_category: 'essential',
  };
}

interface Script {
  uuid: string;
  name: string;
  src: string;
}

const isOurs = (script: Script) => {
  if (script.name !== SCRIPT_NAME) return false;
  try {
    return new URL(script.src).pathname.endsWith(WIDGET_PATH);
  } catch {
    return false;
  }
};

/** A refusal of the store's token says what the install lacks: the scope a script needs. */
function scopeRefused(error: unknown): never {
  if (error instanceof BigCommerceApiError && (error.status === 401 || error.status === 403))
    throw new BigCommerceApiError(
      `BigCommerce refused to manage the store's scripts (${error.status}): the app needs the Content (modify) ` +
        'scope, store_v2_content, which the merchant approves when the app is installed or updated',
      error.status,
      false,
    );
  throw error;
}

function unexpected(what: string, status: number): never {
  throw new BigCommerceApiError(`BigCommerce answered ${status} to ${what} the loyalty script`, status, false);
}

/**
 * `wantedSrc`: the address put gives for the shop, where the caller knows it without a put (the bridge's public
 * address and the store): present then says false for one of ours at another address. Absent: any of ours counts.
 */
export function bigCommerceWidget(
  apiFor: (shop: string) => Promise<BigCommerceApi | undefined>,
  wantedSrc?: (shop: string) => string,
): NonNullable<StorefrontParts['widget']> {
  const apiOf = async (shop: string) => {
    const api = await apiFor(shop);
    if (!api) throw new BigCommerceApiError(`the bridge holds no access to the BigCommerce store ${shop}`, 401, false);
    return api;
  };

  /** Ours among every script the app created, page by page. */
  async function ours(api: BigCommerceApi): Promise<Script[]> {
    const found: Script[] = [];
    for (let page = 1; ; page++) {
      const { status, body } = await api
        .send('GET', 'v3/content/scripts', { searchParams: { page: String(page), limit: String(PAGE_SIZE) } })
        .catch(scopeRefused);
      if (status !== 200) unexpected('list', status);
      const record = asRecord(body);
      const data = Array.isArray(record.data) ? record.data.map(asRecord) : [];
      for (const each of data) {
        const script = { uuid: String(each.uuid ?? ''), name: String(each.name ?? ''), src: String(each.src ?? '') };
        if (script.uuid && isOurs(script)) found.push(script);
      }
      const pagination = asRecord(asRecord(record.meta).pagination);
      if (data.length === 0 || Number(pagination.current_page ?? page) >= Number(pagination.total_pages ?? page))
        return found;
    }
  }

  async function remove(api: BigCommerceApi, uuid: string) {
    const { status } = await api.send('DELETE', `v3/content/scripts/${encodeURIComponent(uuid)}`).catch(scopeRefused);
    // 404: gone already (the merchant deleted it meanwhile).
    if (status >= 300 && status !== 404) unexpected('delete', status);
  }

  return {
    async put(shop, scriptUrl) {
      const api = await apiOf(shop);
      const [first, ...extras] = await ours(api);
      for (const extra of extras) await remove(api, extra.uuid);
      if (first?.src === scriptUrl) return;
      const { status } = first
        ? await api
            .send('PUT', `v3/content/scripts/${encodeURIComponent(first.uuid)}`, { json: scriptBody(scriptUrl) })
            .catch(scopeRefused)
        : await api.send('POST', 'v3/content/scripts', { json: scriptBody(scriptUrl) }).catch(scopeRefused);
      if (status >= 300) unexpected(first ? 'update' : 'create', status);
    },
    async remove(shop) {
      const api = await apiOf(shop);
      for (const script of await ours(api)) await remove(api, script.uuid);
    },
    async present(shop) {
      // One at an old address (the bridge moved) is as good as missing: put puts it right.
      const api = await apiOf(shop);
      const wanted = wantedSrc?.(shop);
      return (await ours(api)).some((script) => wanted === undefined || script.src === wanted);
    },
  };
}
