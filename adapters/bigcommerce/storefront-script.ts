// The widget on a BigCommerce store (capabilities/widget.ts): one script of ours on each Stencil storefront
// (storefront-channels.ts), in that storefront's Script Manager, whose src is the bridge's widget.js
// (storefront-widget.ts), kept with the Scripts API (BigCommerce's docs: reference/scripts.v3.yml,
// docs/integrations/scripts.mdx). A script renders on the one channel it names (channel_id). An app sees only the
// scripts it created, and keeps no id of its own: ours are those with our name whose src has the widget's path, so
// a store whose merchant deleted one in Script Manager, or one that holds two on a channel after a race, or a
// storefront added or archived since, is put right by the next put.
import PQueue from 'p-queue';
import type { StoreWidget } from '../../src/core/platform-module.ts';
import { asRecord } from '../shared/json.ts';
import { BigCommerceApiError, type BigCommerceApi } from './admin-api.ts';
import { widgetChannels, type WidgetChannels } from './storefront-channels.ts';

/** What the merchant reads in Script Manager. */
export const SCRIPT_NAME = 'Loyalty points';
const SCRIPT_DESCRIPTION = "The customer's points launcher, from loyalty-bridge: balance, rewards and ways to earn.";
/** The path of the widget's src (its route, below the module's prefix), whatever the host and query. */
export const WIDGET_PATH = '/bigcommerce/storefront/widget.js';
const PAGE_SIZE = 50;
/**
 * How long a check (present) trusts the storefronts it read: a storefront added since gets the widget within this
 * and the keeper's interval; put reads them anew. Keeps a check of many stores to one call each most of the time.
 */
const CHANNELS_FRESH_MS = 5 * 60_000;

/** The script as we create it, on one storefront. */
function scriptBody(src: string, channelId: number) {
  return {
    channel_id: channelId,
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
  /** The storefront it renders on: 1, the default, for one made before scripts named their channel. */
  channelId: number;
  /**
   * Whether every shopper runs it. One made before the launcher was 'essential' is 'functional', which a shopper
   * who declined cookies never runs: present says it is missing, and put makes it essential.
   */
  essential: boolean;
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
      const script = {
        uuid: String(each.uuid ?? ''),
        name: String(each.name ?? ''),
        src: String(each.src ?? ''),
        channelId: Number.isInteger(each.channel_id) ? Number(each.channel_id) : 1,
        essential: each.consent_category === 'essential',
      };
      if (script.uuid && isOurs(script)) found.push(script);
    }
    const pagination = asRecord(asRecord(record.meta).pagination);
    if (data.length === 0 || Number(pagination.current_page ?? page) >= Number(pagination.total_pages ?? page))
      return found;
  }
}

async function removeScript(api: BigCommerceApi, uuid: string) {
  const { status } = await api.send('DELETE', `v3/content/scripts/${encodeURIComponent(uuid)}`).catch(scopeRefused);
  // 404: gone already (the merchant deleted it meanwhile).
  if (status >= 300 && status !== 404) unexpected('delete', status);
}

/** One script of ours on the channel, at scriptUrl: the first kept (moved if it is elsewhere), others removed. */
async function putOn(api: BigCommerceApi, channelId: number, mine: Script[], scriptUrl: string) {
  const [first, ...extras] = mine;
  for (const extra of extras) await removeScript(api, extra.uuid);
  if (first?.src === scriptUrl && first.essential) return;
  const body = scriptBody(scriptUrl, channelId);
  const { status } = first
    ? await api.send('PUT', `v3/content/scripts/${encodeURIComponent(first.uuid)}`, { json: body }).catch(scopeRefused)
    : await api.send('POST', 'v3/content/scripts', { json: body }).catch(scopeRefused);
  if (status >= 300) unexpected(first ? 'update' : 'create', status);
}

/**
 * `wantedSrc`: the address put gives for the shop, where the caller knows it without a put (the bridge's public
 * address and the store): present then says false for one of ours at another address. Absent: any of ours counts.
 */
export function bigCommerceWidget(
  apiFor: (shop: string) => Promise<BigCommerceApi | undefined>,
  wantedSrc?: (shop: string) => string,
): StoreWidget {
  const apiOf = async (shop: string) => {
    const api = await apiFor(shop);
    if (!api) throw new BigCommerceApiError(`the bridge holds no access to the BigCommerce store ${shop}`, 401, false);
    return api;
  };

  const read = new Map<string, { channels: WidgetChannels; at: number }>();
  /** The storefronts the widget goes on: read anew, or (for a check) as read within CHANNELS_FRESH_MS. */
  async function channelsOf(shop: string, api: BigCommerceApi, fresh: boolean): Promise<WidgetChannels> {
    const kept = read.get(shop);
    if (!fresh && kept && Date.now() - kept.at < CHANNELS_FRESH_MS) return kept.channels;
    const channels = await widgetChannels(api);
    read.set(shop, { channels, at: Date.now() });
    return channels;
  }

  // One change of a shop's scripts at a time in this bridge: two puts at once (the merchant's switch and the keeper's
  // check) would each find no script on a storefront and each make one.
  const changes = new Map<string, PQueue>();
  const oneAtATime = <T>(shop: string, change: () => Promise<T>): Promise<T> => {
    let queue = changes.get(shop);
    if (!queue) changes.set(shop, (queue = new PQueue({ concurrency: 1 })));
    return queue.add(change);
  };

  async function put(shop: string, scriptUrl: string): Promise<void> {
    const api = await apiOf(shop);
    const [scripts, channels] = await Promise.all([ours(api), channelsOf(shop, api, true)]);
    // A storefront archived, deleted or gone headless since keeps none; where the channels could not be read,
    // the others' scripts stay as they are (the bridge cannot tell which storefronts are still there). Removed
    // first: "Each app can have 10 API-created scripts" (docs/integrations/scripts.mdx, Limits), so a script
    // left on an archived storefront would have BigCommerce refuse the one a new storefront needs, every time.
    if (channels.complete)
      for (const script of scripts) if (!channels.ids.includes(script.channelId)) await removeScript(api, script.uuid);
    for (const channelId of channels.ids)
      await putOn(
        api,
        channelId,
        scripts.filter((script) => script.channelId === channelId),
        scriptUrl,
      );
  }

  return {
    put: (shop, scriptUrl) => oneAtATime(shop, () => put(shop, scriptUrl)),
    remove: (shop) =>
      oneAtATime(shop, async () => {
        const api = await apiOf(shop);
        for (const script of await ours(api)) await removeScript(api, script.uuid);
      }),
    async present(shop) {
      // On every storefront it goes on; one at an old address (the bridge moved) is as good as missing there: put
      // puts it right.
      const api = await apiOf(shop);
      const wanted = wantedSrc?.(shop);
      const [scripts, channels] = await Promise.all([ours(api), channelsOf(shop, api, false)]);
      return channels.ids.every((channelId) =>
        scripts.some(
          (script) =>
            script.channelId === channelId && script.essential && (wanted === undefined || script.src === wanted),
        ),
      );
    },
  };
}
