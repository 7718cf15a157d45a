// What the points launcher (the theme app extension's app embed) costs a store's page: Lighthouse's performance
// score (its default, a phone on a throttled network, simulated) on a local store page without and with the
// embed's markup, script and stylesheet, the median of runs each, in one Chromium. Built for Shopify lets an app
// cost at most 10 points. The page is the theme store stand-in of the browser test (test/helpers/theme-store.ts),
// serving the extension's own files; the launcher asks the app proxy only when opened, so no bridge is needed.
// Also the script's and stylesheet's sizes, raw and gzipped (Shopify's theme check allows 10 KB of gzipped
// JavaScript per file). The smoke profile skips Lighthouse (a minute of Chromium) and says so.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { launch } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { EXTENSION_DIR, startThemeStore } from '../../test/helpers/theme-store.ts';

export interface ThemeEmbedProfile {
  /** Lighthouse runs per page (the median is kept); 0 skips Lighthouse. */
  runs: number;
}

export interface ThemeEmbedResult {
  assets: Record<'js' | 'css', { raw: number; gzip: number }>;
  /** Median performance scores (0–100), null when skipped. */
  without: number | null;
  with: number | null;
  /** without − with: the points the embed costs (target ≤ 10). */
  cost: number | null;
  runs: number;
}

const CHROMIUM = '/usr/bin/chromium';
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function sizes(name: string) {
  const bytes = readFileSync(`${EXTENSION_DIR}assets/${name}`);
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

export async function themeEmbedScenario(
  profile: ThemeEmbedProfile,
  log: (line: string) => void = () => undefined,
): Promise<ThemeEmbedResult> {
  const assets = { js: sizes('loyalty.js'), css: sizes('loyalty.css') };
  log(
    `  theme embed: loyalty.js ${assets.js.raw} B (${assets.js.gzip} B gzipped), loyalty.css ${assets.css.raw} B (${assets.css.gzip} B gzipped)`,
  );
  if (profile.runs === 0) {
    log('  theme embed: Lighthouse skipped in this profile (npm run bench runs it)');
    return { assets, without: null, with: null, cost: null, runs: 0 };
  }
  const bare = await startThemeStore({
    shop: 'bench.myshopify.com',
    pages: { index: { template: 'index', embed: false } },
  });
  const embedded = await startThemeStore({ shop: 'bench.myshopify.com', pages: { index: { template: 'index' } } });
  const chrome = await launch({
    chromePath: CHROMIUM,
    chromeFlags: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const score = async (url: string) => {
      const result = await lighthouse(url, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance'],
      });
      const value = result?.lhr.categories.performance?.score;
      if (typeof value !== 'number') throw new Error(`Lighthouse gave no performance score for ${url}`);
      const ms = (audit: string) => Math.round(result?.lhr.audits[audit]?.numericValue ?? NaN);
      return { score: Math.round(value * 100), lcp: ms('largest-contentful-paint'), tbt: ms('total-blocking-time') };
    };
    const line = (runs: Array<{ score: number; lcp: number; tbt: number }>) =>
      `${runs.map((run) => run.score).join(', ')} (LCP ms ${median(runs.map((run) => run.lcp))}, TBT ms ${median(runs.map((run) => run.tbt))})`;
    const without: Array<Awaited<ReturnType<typeof score>>> = [];
    const withEmbed: Array<Awaited<ReturnType<typeof score>>> = [];
    // In turns, so that whatever else the machine does falls on both alike.
    for (let run = 0; run < profile.runs; run += 1) {
      without.push(await score(`${bare.url}/`));
      withEmbed.push(await score(`${embedded.url}/`));
    }
    const result = {
      without: median(without.map((run) => run.score)),
      with: median(withEmbed.map((run) => run.score)),
    };
    const cost = result.without - result.with;
    log(`  theme embed: Lighthouse performance without ${line(without)}; with ${line(withEmbed)}`);
    log(
      `  theme embed: medians ${result.without} without, ${result.with} with: costs ${cost} points (target <= 10, ${cost <= 10 ? 'met' : 'NOT met'})`,
    );
    return { assets, ...result, cost, runs: profile.runs };
  } finally {
    chrome.kill();
    await bare.close();
    await embedded.close();
  }
}
