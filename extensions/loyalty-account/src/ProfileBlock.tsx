// customer-account.profile.block.render: the balance on the Profile page, with a link to the full page (the
// extension loyalty-account-page, reached by its handle: the Navigation API's extension://<handle>).
import '@shopify/ui-extensions/preact';
import { render } from 'preact';
import { AccountPoints } from './PointsView.tsx';

export default async () => {
  render(
    <s-section heading={shopify.i18n.translate('title')}>
      <AccountPoints api={shopify} compact fullPageHref="extension://loyalty-account-page" />
    </s-section>,
    document.body,
  );
};
