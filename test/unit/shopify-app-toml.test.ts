// shopify.app.toml, for merchants who deploy with Shopify CLI, declares what
// the bridge itself handles: the compliance topics (and no other topic: the
// bridge subscribes those per shop, and a second, app-wide subscription would
// double every delivery), the App URL, callback and webhook paths the bridge
// serves, embedding as the bridge defaults to it, and its default API version.
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { expect, it } from 'vitest';
import { COMPLIANCE_TOPICS } from '../../adapters/shopify/topics.ts';
import { loadConfig } from '../../src/config.ts';
import { SHOPIFY_APP_URL_PATH, SHOPIFY_CALLBACK_PATH } from '../../src/http/shopify-auth.ts';

interface AppToml {
  application_url: string;
  embedded: boolean;
  access_scopes: { scopes: string };
  auth: { redirect_urls: string[] };
  webhooks: { api_version: string; subscriptions: Array<{ topics?: string[]; compliance_topics?: string[]; uri: string }> };
}

it('declares the compliance topics and no other, and the paths and API version the bridge uses', () => {
  const app = parse(readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8')) as unknown as AppToml;
  const subscriptions = app.webhooks.subscriptions;
  expect(subscriptions.flatMap((subscription) => subscription.topics ?? [])).toEqual([]);
  expect(subscriptions.flatMap((subscription) => subscription.compliance_topics ?? []).sort()).toEqual([...COMPLIANCE_TOPICS].sort());
  for (const subscription of subscriptions) expect(new URL(subscription.uri).pathname).toBe('/webhooks/shopify');
  expect(app.auth.redirect_urls.map((url) => new URL(url).pathname)).toEqual([SHOPIFY_CALLBACK_PATH]);
  // The App URL is the bridge's entry for Shopify (not the operator's /admin/), and is where managed installs get access.
  expect(new URL(app.application_url).pathname).toBe(SHOPIFY_APP_URL_PATH);
  const loaded = loadConfig({ env: { DATA_DIR: '/tmp' } });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  expect(app.webhooks.api_version).toBe(loaded.config.SHOPIFY_API_VERSION);
  expect(app.embedded).toBe(loaded.config.SHOPIFY_EMBEDDED);
  expect(app.access_scopes.scopes.split(',')).toEqual(loaded.config.SHOPIFY_SCOPES);
});
