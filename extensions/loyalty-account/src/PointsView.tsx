// Renders what points-view.ts decided, in Shopify's web components (s-*): the balance, the notes under it, the
// recent history and the ways to earn. `compact` (the Profile page's block) shows the balance and a link to the
// full page; the full page shows everything.
import type { Api } from '@shopify/ui-extensions/customer-account.page.render';
import type { PointsScreen, Words } from './points-view.ts';
import { usePoints } from './use-points.ts';

export type Translate = (key: string, values?: Readonly<Record<string, string | number>>) => string;

/** What both targets' APIs give the same: the token, the phrases, the customer's language. */
export type AccountApi = Pick<Api, 'sessionToken' | 'i18n' | 'localization'>;

/** The customer's points, loaded with the target's own API (the `shopify` global of its module). */
export function AccountPoints({
  api,
  compact,
  fullPageHref,
}: {
  api: AccountApi;
  compact: boolean;
  fullPageHref?: string;
}) {
  const screen = usePoints(api.sessionToken, api.localization.language.value.isoCode);
  return (
    <PointsView
      screen={screen}
      translate={(key, values) => api.i18n.translate(key, values)}
      compact={compact}
      {...(fullPageHref ? { fullPageHref } : {})}
    />
  );
}

export function PointsView({
  screen,
  translate,
  compact,
  fullPageHref,
}: {
  screen: PointsScreen | undefined;
  translate: Translate;
  compact: boolean;
  fullPageHref?: string;
}) {
  const say = (words: Words) => translate(words.key, words.values);
  if (!screen) return <s-spinner accessibilityLabel={translate('loading')} />;
  return (
    <s-stack direction="block" gap="base">
      {screen.warning ? <s-banner tone="warning">{say(screen.warning)}</s-banner> : null}
      {screen.balance ? <s-heading>{say(screen.balance)}</s-heading> : null}
      {screen.notes.map((note) => (
        <s-paragraph key={note.key}>{say(note)}</s-paragraph>
      ))}
      {compact ? (
        fullPageHref && screen.balance ? (
          <s-link href={fullPageHref}>{translate('seeAll')}</s-link>
        ) : null
      ) : (
        <>
          {screen.balance ? (
            <s-section heading={translate('history')}>
              {screen.history.length === 0 ? (
                <s-paragraph>{translate('noHistory')}</s-paragraph>
              ) : (
                <s-unordered-list>
                  {screen.history.map((line, index) => (
                    <s-list-item key={index}>
                      <s-text color="subdued">{line.date}</s-text> {line.words}{' '}
                      <s-text tone={line.earned ? 'success' : 'neutral'}>{line.points}</s-text>
                    </s-list-item>
                  ))}
                </s-unordered-list>
              )}
            </s-section>
          ) : null}
          {screen.ways.length > 0 ? (
            <s-section heading={translate('waysToEarn')}>
              <s-unordered-list>
                {screen.ways.map((way) => (
                  <s-list-item key={way.words}>
                    {way.words}: {say(way.points)}
                  </s-list-item>
                ))}
              </s-unordered-list>
            </s-section>
          ) : null}
        </>
      )}
    </s-stack>
  );
}
