// customer-account.page.render: a page of its own in the customer's account, with the balance, the recent
// history and the ways to earn. A full-page target is an extension of its own (Shopify allows no other target
// beside it); it shares the block's code (../../loyalty-account/src), which Shopify CLI bundles in.
import '@shopify/ui-extensions/preact';
import { render } from 'preact';
import { AccountPoints } from '../../loyalty-account/src/PointsView.tsx';

export default async () => {
  render(
    <s-page heading={shopify.i18n.translate('title')}>
      <AccountPoints api={shopify} compact={false} />
    </s-page>,
    document.body,
  );
};
