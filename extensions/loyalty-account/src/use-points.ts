// Loads the customer's points once the extension renders, and once more after the bridge's hint when it was busy.
import { useEffect, useState } from 'preact/hooks';
import { bridgeUrl } from './bridge-url.ts';
import { loadPoints } from './fetch-points.ts';
import type { PointsScreen } from './points-view.ts';

export function usePoints(token: () => Promise<string>, locale: string): PointsScreen | undefined {
  const [screen, setScreen] = useState<PointsScreen | undefined>(undefined);
  useEffect(() => {
    let live = true;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      const loaded = await loadPoints({ bridgeUrl: bridgeUrl(), token }, { locale });
      if (!live) return;
      setScreen(loaded);
      if (loaded.retryAfterSeconds !== undefined)
        retry = setTimeout(() => void load(), Math.min(loaded.retryAfterSeconds, 60) * 1000);
    };
    void load();
    return () => {
      live = false;
      if (retry) clearTimeout(retry);
    };
  }, [token, locale]);
  return screen;
}
