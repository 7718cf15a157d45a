// Loads the customer's points once the extension renders, and again after the bridge's hint when it was busy (a
// few times at most: a page left open does not keep asking a bridge that stays busy), and when asked (`reload`,
// after a redemption).
import { useEffect, useState } from 'preact/hooks';
import { bridgeUrl } from './bridge-url.ts';
import { loadPoints } from './fetch-points.ts';
import type { PointsScreen } from './points-view.ts';

const MAX_RETRIES = 3;

/** `sessionToken`: the target API's own object (stable across renders), asked for a fresh token on each load. */
export function usePoints(
  sessionToken: { get(): Promise<string> },
  locale: string,
): { screen: PointsScreen | undefined; reload: () => void } {
  const [screen, setScreen] = useState<PointsScreen | undefined>(undefined);
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    let live = true;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let retries = 0;
    const load = async () => {
      const loaded = await loadPoints({ bridgeUrl: bridgeUrl(), token: () => sessionToken.get() }, { locale });
      if (!live) return;
      setScreen(loaded);
      if (loaded.retryAfterSeconds !== undefined && retries++ < MAX_RETRIES)
        retry = setTimeout(() => void load(), Math.min(loaded.retryAfterSeconds, 60) * 1000);
    };
    void load();
    return () => {
      live = false;
      if (retry) clearTimeout(retry);
    };
  }, [sessionToken, locale, asked]);
  return { screen, reload: () => setAsked((times) => times + 1) };
}
