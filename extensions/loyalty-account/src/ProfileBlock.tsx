// customer-account.profile.block.render: the balance on the Profile page, with a link to the full page.
import '@shopify/ui-extensions/preact';
import { render } from 'preact';
import { PointsView } from './PointsView.tsx';
import { usePoints } from './use-points.ts';

export default async () => {
  render(<ProfileBlock />, document.body);
};

const token = () => shopify.sessionToken.get();

function ProfileBlock() {
  const screen = usePoints(token, shopify.localization.language.value.isoCode);
  return (
    <s-section heading={shopify.i18n.translate('title')}>
      <PointsView
        screen={screen}
        translate={(key, values) => shopify.i18n.translate(key, values)}
        compact
        fullPageHref="extension:loyalty-account/"
      />
    </s-section>
  );
}
