// The `shopify` global of the full page's module, typed for its target, as Shopify CLI declares it
// (../loyalty-account/shopify.d.ts says why without the CLI's @ts-ignore lines).
import type { Api as FullPageApi } from '@shopify/ui-extensions/customer-account.page.render';

declare module './src/FullPage.tsx' {
  const shopify: FullPageApi;
}
