// The Channels API's list on the fake BigCommerce's store API, from BigCommerce's docs (reference/channels.v3.yml,
// https://developer.bigcommerce.com/docs/rest-management/channels; scopes from "API accounts and OAuth scopes",
// https://developer.bigcommerce.com/docs/start/authentication/api-accounts#oauth-scopes):
//   GET /v3/channels   {data: Channel[], meta: {pagination}}; "Will always return the default BigCommerce
//     storefront with an ID of `1`"; filters available (true: prelaunch, active, inactive, connected; false: the
//     rest), status:in, type:in, platform:in (comma-separated), page and limit
//   a channel's type and platform pair: storefront on bigcommerce ("Stencil and Blueprint"), catalyst, next, wordpress
//     and the other headless platforms; marketplace, marketing and pos on theirs
//   scope: Channel Settings, store_channel_settings_read_only ("View a list of channels") or store_channel_settings;
//     a token without either gets 403
//   422 for "Invalid value is provided to the query parameter(s)" (invalid_filter_value_resp, e.g. 'Query parameter
//     "limit" value must be integer'): a status:in or type:in value outside its documented enum, an available that is
//     not a boolean, a limit or page that is not an integer
// Scripts are channel-aware (fake-bigcommerce-scripts.ts): a script names the channel it renders on.
import { pageOf } from './fake-bigcommerce-pages.ts';
import type express from 'express';
import { fakeScopeOf, fakeStoreOf, type ChannelStatus, type FakeChannel } from './fake-bigcommerce-store.ts';

/** The documented `available=true` statuses. */
const AVAILABLE: readonly ChannelStatus[] = ['prelaunch', 'active', 'inactive', 'connected'];

/** The storefront every store is provisioned with. */
export const defaultChannel = (): FakeChannel => ({
  id: 1,
  name: 'Default storefront',
  type: 'storefront',
  platform: 'bigcommerce',
  status: 'active',
});

const listOf = (value: unknown) => (typeof value === 'string' ? value.split(',').filter(Boolean) : undefined);

/** The documented enums of the status:in and type:in filters (reference/channels.v3.yml, parameters). */
const STATUSES: readonly string[] = [...AVAILABLE, 'disconnected', 'archived', 'deleted', 'terminated'];
const TYPES: readonly string[] = ['marketplace', 'marketing', 'pos', 'storefront'];

/** Why the query's filters are not what BigCommerce takes (its 422's title), or undefined. */
function invalidFilter(query: Record<string, unknown>): string | undefined {
  for (const [name, allowed] of [
    ['status:in', STATUSES],
    ['type:in', TYPES],
  ] as const) {
    const bad = listOf(query[name])?.find((value) => !allowed.includes(value));
    if (bad !== undefined) return `Query parameter "${name}" value "${bad}" is not one of ${allowed.join(', ')}.`;
  }
  if (query.available !== undefined && query.available !== 'true' && query.available !== 'false')
    return 'Query parameter "available" value must be boolean.';
  for (const name of ['limit', 'page'])
    if (query[name] !== undefined && !/^\d+$/.test(String(query[name])))
      return `Query parameter "${name}" value must be integer. For input string: "${String(query[name])}".`;
  return undefined;
}

/** Serves GET /v3/channels on the fake's store API (fake-bigcommerce.ts calls it once). */
export function serveChannels(router: express.Router): void {
  router.get('/v3/channels', (req, res) => {
    const scope = fakeScopeOf(res);
    if (scope !== undefined && !/(^|\s)store_channel_settings(_read_only)?(\s|$)/.test(scope))
      return void res
        .status(403)
        .json({ status: 403, title: "You don't have a required scope to access the endpoint", errors: {} });
    const query = req.query as Record<string, unknown>;
    const invalid = invalidFilter(query);
    if (invalid)
      return void res
        .status(422)
        .json({ status: 422, title: invalid, type: '/api-docs/getting-started/api-status-codes', errors: {} });
    const statuses = listOf(query['status:in']);
    const types = listOf(query['type:in']);
    const platforms = listOf(query['platform:in']);
    const available = query.available === undefined ? undefined : query.available === 'true';
    const all = fakeStoreOf(res).channels.filter(
      (channel) =>
        (statuses === undefined || statuses.includes(channel.status)) &&
        (types === undefined || types.includes(channel.type)) &&
        (platforms === undefined || platforms.includes(channel.platform)) &&
        (available === undefined || AVAILABLE.includes(channel.status) === available),
    );
    const limit = Math.max(1, Number(query.limit ?? 50) || 50);
    const page = Math.max(1, Number(query.page ?? 1) || 1);
    res.json(
      pageOf(all, page, limit, (channel) => ({
        ...channel,
        is_visible: true,
        is_listable_from_ui: true,
        external_id: '',
      })),
    );
  });
}

/** Adds a channel to a store (the merchant creates a storefront in Channel Manager); its id is the next free one. */
export function addChannel(
  stores: Map<string, { channels: FakeChannel[] }>,
  hash: string,
  channel: Omit<FakeChannel, 'id'>,
): FakeChannel {
  const store = stores.get(hash);
  if (!store) throw new Error(`the fake BigCommerce has no store ${hash}`);
  const made = { ...channel, id: Math.max(...store.channels.map((each) => each.id)) + 1 };
  store.channels.push(made);
  return made;
}
