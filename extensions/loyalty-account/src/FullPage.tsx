// customer-account.page.render: a page of its own in the customer's account, with the balance, the recent
// history and the ways to earn.
import '@shopify/ui-extensions/preact';
import { render } from 'preact';
import { AccountPoints } from './PointsView.tsx';

export default async () => {
  render(
    <s-page heading={shopify.i18n.translate('title')}>
      <AccountPoints api={shopify} compact={false} />
    </s-page>,
    document.body,
  );
};
