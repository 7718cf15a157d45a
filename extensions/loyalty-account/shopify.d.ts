// The `shopify` global of the block's module, typed for its target, as Shopify CLI declares it for an extension
// (its generated shopify.d.ts, here without the CLI's @ts-ignore lines, which this tree's lint refuses).
import type { Api as ProfileBlockApi } from '@shopify/ui-extensions/customer-account.profile.block.render';

declare module './src/ProfileBlock.tsx' {
  const shopify: ProfileBlockApi;
}
