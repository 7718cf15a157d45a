// customer-account.page.render: a page of its own in the customer's account, with the balance, the recent
// history and the ways to earn.
import '@shopify/ui-extensions/preact';
import { render } from 'preact';
import { PointsView } from './PointsView.tsx';
import { usePoints } from './use-points.ts';

export default async () => {
  render(<FullPage />, document.body);
};

const token = () => shopify.sessionToken.get();

function FullPage() {
  const screen = usePoints(token, shopify.localization.language.value.isoCode);
  return (
    <s-page heading={shopify.i18n.translate('title')}>
      <PointsView screen={screen} translate={(key, values) => shopify.i18n.translate(key, values)} compact={false} />
    </s-page>
  );
}
