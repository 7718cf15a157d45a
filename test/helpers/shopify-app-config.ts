// The app's configuration as this project ships it (shopify.app.toml), read
// the way Shopify reads it at `shopify app deploy`: its app-specific webhook
// subscriptions, each topic with its include_fields. Tests give these to the
// fake Shopify, so that its deliveries are what a deployed app receives.
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';

export interface AppToml {
  application_url: string;
  embedded: boolean;
  access_scopes: { scopes: string; optional_scopes?: string[] };
  app_proxy: { url: string; subpath: string; prefix: string };
  auth: { redirect_urls: string[] };
  webhooks: {
    api_version: string;
    subscriptions: Array<{
      name?: string;
      topics?: string[];
      compliance_topics?: string[];
      uri: string;
      include_fields?: string[];
    }>;
  };
}

export const appToml = (): AppToml =>
  parse(readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8')) as unknown as AppToml;

/** Each declared topic, delivered to the bridge at `bridgeUrl` (the toml's https://bridge.example.com stands for it), with its subscription's name. */
export function declaredSubscriptions(
  bridgeUrl: string,
): Array<{ topic: string; uri: string; includeFields: string[] | undefined; name: string | undefined }> {
  return appToml().webhooks.subscriptions.flatMap((subscription) =>
    (subscription.topics ?? []).map((topic) => ({
      topic,
      uri: `${bridgeUrl}${new URL(subscription.uri).pathname}`,
      includeFields: subscription.include_fields,
      name: subscription.name,
    })),
  );
}
