// shopify.app.toml, for merchants who deploy with Shopify CLI, declares what
// the bridge itself handles: every topic it reads, as app-specific
// subscriptions (so a shop earns from the moment it installs the app), each
// with exactly the fields the translation reads; the compliance topics; the
// App URL, callback and webhook paths the bridge serves; embedding as the
// bridge defaults to it; and its default API version.
import { expect, it } from 'vitest';
import { COMPLIANCE_TOPICS, DECLARED_FIELDS, DECLARED_NAMES, SHOPIFY_TOPICS } from '../../adapters/shopify/topics.ts';
import { loadConfig } from '../../src/config.ts';
import { appToml } from '../helpers/shopify-app-config.ts';
import { SHOPIFY_APP_URL_PATH, SHOPIFY_CALLBACK_PATH, SHOPIFY_STOREFRONT_PATH } from '../../adapters/shopify/paths.ts';
import { STOREFRONT_SCOPES } from '../../adapters/shopify/storefront-readiness.ts';
import { DISCOUNT_SCOPES } from '../../adapters/shopify/discount-readiness.ts';

it('declares every topic the bridge reads, once, with the fields it reads, and the compliance topics', () => {
  const app = appToml();
  const subscriptions = app.webhooks.subscriptions;
  const declared = subscriptions.flatMap((subscription) =>
    (subscription.topics ?? []).map((topic) => [topic, subscription.include_fields] as const),
  );
  expect(declared.map(([topic]) => topic).sort()).toEqual([...SHOPIFY_TOPICS].sort());
  for (const [topic, fields] of declared) expect([topic, fields]).toEqual([topic, DECLARED_FIELDS.get(topic)]);
  expect(subscriptions.flatMap((subscription) => subscription.compliance_topics ?? []).sort()).toEqual(
    [...COMPLIANCE_TOPICS].sort(),
  );
  for (const subscription of subscriptions) expect(new URL(subscription.uri).pathname).toBe('/webhooks/shopify');
});

it('names each subscription as the bridge knows it (X-Shopify-Name tells its deliveries apart), each name once, within Shopify’s rules', () => {
  const named = appToml().webhooks.subscriptions.filter((subscription) => subscription.topics);
  for (const subscription of named) {
    expect(subscription.name).toMatch(/^[A-Za-z0-9_-]{1,50}$/);
    for (const topic of subscription.topics ?? [])
      expect([topic, subscription.name]).toEqual([topic, DECLARED_NAMES.get(topic)]);
  }
  expect(new Set(named.map((subscription) => subscription.name)).size).toBe(named.length);
});

it('names the paths, the API version, the embedding and the scopes the bridge uses', () => {
  const app = appToml();
  expect(app.auth.redirect_urls.map((url) => new URL(url).pathname)).toEqual([SHOPIFY_CALLBACK_PATH]);
  // The App URL is the bridge's entry for Shopify (not the operator's /admin/), and is where managed installs get access.
  expect(new URL(app.application_url).pathname).toBe(SHOPIFY_APP_URL_PATH);
  const loaded = loadConfig({ env: { DATA_DIR: '/tmp' } });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  expect(app.webhooks.api_version).toBe(loaded.config.SHOPIFY_API_VERSION);
  expect(app.embedded).toBe(loaded.config.SHOPIFY_EMBEDDED);
  expect(app.access_scopes.scopes.split(',')).toEqual(loaded.config.SHOPIFY_SCOPES);
});

it('sends the storefront through the app proxy to the path the bridge serves it at, and asks for its scopes as optional', () => {
  const app = appToml();
  expect(new URL(app.app_proxy.url).pathname).toBe(SHOPIFY_STOREFRONT_PATH);
  // Shopify's rules for the subpath: letters, digits, underscores and hyphens, at most 30.
  expect(app.app_proxy.subpath).toMatch(/^[A-Za-z0-9_-]{1,30}$/);
  expect(['apps', 'a', 'community', 'tools']).toContain(app.app_proxy.prefix);
  // Optional, so that no existing install approves the app again; never among the required ones.
  expect(app.access_scopes.optional_scopes).toEqual([...STOREFRONT_SCOPES, ...DISCOUNT_SCOPES]);
  for (const scope of [...STOREFRONT_SCOPES, ...DISCOUNT_SCOPES])
    expect(app.access_scopes.scopes.split(',')).not.toContain(scope);
});
