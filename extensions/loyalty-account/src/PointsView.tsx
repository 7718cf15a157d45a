// Renders what points-view.ts decided, in Shopify's web components (s-*): the balance, the notes under it, the
// customer's unused codes, the rewards (redeemed after a confirmation), the recent history and the ways to earn. `compact` (the Profile page's block) shows the balance and a link to the
// full page; the full page shows everything.
import type { Api } from '@shopify/ui-extensions/customer-account.page.render';
import { useState } from 'preact/hooks';
import { bridgeUrl } from './bridge-url.ts';
import { redeemReward } from './fetch-points.ts';
import type { Code, PointsScreen, Redeemed, Words } from './points-view.ts';
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
  const locale = api.localization.language.value.isoCode;
  const { screen, reload } = usePoints(api.sessionToken, locale);
  const redeem = (reward: string) =>
    redeemReward({ bridgeUrl: bridgeUrl(), token: () => api.sessionToken.get() }, reward, { locale });
  return (
    <PointsView
      screen={screen}
      redeem={redeem}
      onRedeemed={reload}
      translate={(key, values) => api.i18n.translate(key, values)}
      compact={compact}
      {...(fullPageHref ? { fullPageHref } : {})}
    />
  );
}

/** A code with a button that copies it (s-clipboard-item, pressed through the button's command). */
function CodeLine({ code, translate, id }: { code: Code; translate: Translate; id: string }) {
  const say = (words: Words) => translate(words.key, words.values);
  return (
    <s-stack direction="block" gap="small-200">
      <s-stack direction="inline" gap="base" alignItems="center">
        <s-heading>{code.code}</s-heading>
        <s-clipboard-item id={id} text={code.code} />
        <s-button variant="secondary" commandFor={id} command="--copy">
          {translate('copy')}
        </s-button>
      </s-stack>
      <s-text color="subdued">
        {code.gives ? `${say(code.gives)} · ` : ''}
        {say(code.useBefore)}
      </s-text>
    </s-stack>
  );
}

/** The rewards, each redeemed after "Spend N points for 10% off?"; the code just made shown above them. */
function Rewards({
  screen,
  translate,
  redeem,
  onRedeemed,
}: {
  screen: PointsScreen;
  translate: Translate;
  redeem?: (reward: string) => Promise<Redeemed>;
  onRedeemed?: () => void;
}) {
  const say = (words: Words) => translate(words.key, words.values);
  const [confirming, setConfirming] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ reward: string; error: Words } | undefined>(undefined);
  const [made, setMade] = useState<Code | undefined>(undefined);
  const spend = async (reward: string) => {
    if (!redeem) return;
    setBusy(true);
    const answer = await redeem(reward);
    setBusy(false);
    setConfirming(undefined);
    if (answer.ok) {
      setMade(answer.code);
      setSaid(undefined);
      onRedeemed?.();
    } else setSaid({ reward, error: answer.error });
  };
  const open = screen.codes.filter((code) => code.code !== made?.code);
  return (
    <>
      {made ? (
        <s-section heading={translate('yourCode')}>
          <CodeLine code={made} translate={translate} id="loyalty-made-code" />
        </s-section>
      ) : null}
      {open.length > 0 ? (
        <s-section heading={translate('codes')}>
          <s-stack direction="block" gap="base">
            {open.map((code, index) => (
              <CodeLine key={code.code} code={code} translate={translate} id={`loyalty-code-${index}`} />
            ))}
          </s-stack>
        </s-section>
      ) : null}
      {screen.rewards.length > 0 ? (
        <s-section heading={translate('rewards')}>
          <s-stack direction="block" gap="base">
            {screen.rewards.map((reward) => (
              <s-stack key={reward.id} direction="block" gap="small-200">
                <s-text>{reward.words}</s-text>
                {reward.short ? <s-text color="subdued">{say(reward.short)}</s-text> : null}
                {screen.canRedeem && confirming === reward.id ? (
                  <s-stack direction="inline" gap="base" alignItems="center">
                    <s-text>{say(reward.confirm)}</s-text>
                    <s-button variant="primary" loading={busy} onClick={() => void spend(reward.id)}>
                      {translate('confirmYes')}
                    </s-button>
                    <s-button variant="secondary" disabled={busy} onClick={() => setConfirming(undefined)}>
                      {translate('cancel')}
                    </s-button>
                  </s-stack>
                ) : screen.canRedeem ? (
                  <s-button
                    variant="secondary"
                    disabled={reward.short !== undefined || busy}
                    onClick={() => {
                      setSaid(undefined);
                      setConfirming(reward.id);
                    }}
                  >
                    {translate('redeem')}
                  </s-button>
                ) : null}
                {said?.reward === reward.id ? <s-banner tone="critical">{say(said.error)}</s-banner> : null}
              </s-stack>
            ))}
          </s-stack>
        </s-section>
      ) : null}
    </>
  );
}

export function PointsView({
  screen,
  translate,
  compact,
  fullPageHref,
  redeem,
  onRedeemed,
}: {
  screen: PointsScreen | undefined;
  translate: Translate;
  compact: boolean;
  fullPageHref?: string;
  redeem?: (reward: string) => Promise<Redeemed>;
  onRedeemed?: () => void;
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
          <Rewards
            screen={screen}
            translate={translate}
            {...(redeem ? { redeem } : {})}
            {...(onRedeemed ? { onRedeemed } : {})}
          />
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
