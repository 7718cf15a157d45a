// Which of a BigCommerce store's storefronts get the widget: every Stencil storefront channel. Scripts are
// channel-aware, and a script that names no channel goes on the default storefront (channel 1) alone, so a store
// with several storefronts needs one script on each (BigCommerce's Multi-Storefront guide, "Scripts"). Channels come
// from the Channels API (GET /v3/channels; reference/channels.v3.yml), which needs Channel Settings read-only,
// store_channel_settings_read_only. Platform `bigcommerce` is BigCommerce's hosted storefront ("Stencil and
// Blueprint": a Blueprint store renders no scripts, and is not told apart here: docs/bigcommerce.md), where the
// widget's relative /customer/current.jwt is answered; a headless storefront (Catalyst, Next.js, WordPress, …) is
// its own site, where BigCommerce answers no current-customer token, so it gets no script (docs/bigcommerce.md).
import { asRecord } from '../shared/json.ts';
import { BigCommerceApiError, type BigCommerceApi } from './admin-api.ts';

/** The storefront every store has ("Will always return the default BigCommerce storefront with an ID of 1"). */
export const DEFAULT_CHANNEL = 1;
/** A storefront the merchant may be building (prelaunch), selling on, or has paused (inactive); not one archived. */
const LIVE = new Set(['prelaunch', 'active', 'inactive']);
const PAGE_SIZE = 50;

export interface WidgetChannels {
  /** The channels the widget goes on. */
  ids: number[];
  /**
   * Whether they are every Stencil storefront: false where the install may not read its channels (the scope is
   * missing), and the default storefront is all the bridge knows of.
   */
  complete: boolean;
}

/** The store's Stencil storefront channels; the default storefront alone where BigCommerce refuses the read (403). */
export async function widgetChannels(api: BigCommerceApi): Promise<WidgetChannels> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    let answer;
    try {
      answer = await api.send('GET', 'v3/channels', {
        searchParams: {
          'type:in': 'storefront',
          'platform:in': 'bigcommerce',
          available: 'true',
          page: String(page),
          limit: String(PAGE_SIZE),
        },
      });
    } catch (error) {
      if (error instanceof BigCommerceApiError && error.status === 403)
        return { ids: [DEFAULT_CHANNEL], complete: false };
      throw error;
    }
    if (answer.status !== 200)
      throw new BigCommerceApiError(
        `BigCommerce answered ${answer.status} to a list of its channels`,
        answer.status,
        false,
      );
    const record = asRecord(answer.body);
    const data = Array.isArray(record.data) ? record.data.map(asRecord) : [];
    // Checked here too: a filter BigCommerce ignored lets nothing else through.
    for (const channel of data)
      if (
        channel.type === 'storefront' &&
        channel.platform === 'bigcommerce' &&
        LIVE.has(String(channel.status)) &&
        Number.isInteger(channel.id)
      )
        ids.push(Number(channel.id));
    const pagination = asRecord(asRecord(record.meta).pagination);
    if (data.length === 0 || Number(pagination.current_page ?? page) >= Number(pagination.total_pages ?? page))
      return { ids, complete: true };
  }
}
