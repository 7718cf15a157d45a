// One demo store page in Debian's Chromium, for the browser tests of each platform's demo store: the bridge started
// as `npm start` starts it (sandbox mode, no store, no ADMIN_TOKEN), its demo played, the demo stores' link told at
// the terminal, and a page at 1280 px. Registers its own beforeAll and afterAll in the describe that calls it.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startFirstRunBridge } from './bridge.ts';
import { launchChromium } from './browser.ts';
import { eventually } from './engine.ts';

export interface DemoStorePage {
  bridge: RunningBridge;
  browser: Browser;
  page: Page;
  /** The demo stores' link at first; a test moves it to the store it opened. */
  link: string;
  /** The launcher opened, its answer shown: the panel's text. */
  launcher(): Promise<string>;
  /** The page again, its launcher opened. */
  reopened(): Promise<string>;
  /** Screenshots at 1280 and 390 px into `shots`, none scrolling sideways. */
  shoot(name: string): Promise<void>;
  /** The demo's reward (100 points for 5.00 off) redeemed from the open launcher: its code. */
  /** The reward of those words redeemed (the demo's amount off unless said): its code, which says what it `gives`. */
  redeemReward(words?: string, gives?: string): Promise<string>;
  /**
   * After the code paid: the same code again is refused at the checkout and nothing more is sent (`sent` counts what
   * the demo sent for the store), and the redeem reached the service once: what the customer reads, and the trial
   * account's one redemption.
   */
  paidOnce(code: string, sent: () => number): Promise<void>;
}

export function demoStorePage(shots: string): DemoStorePage {
  const demo = {
    link: '',
    async launcher() {
      const button = demo.page.getByRole('button', { name: 'Your points' });
      await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false');
      await button.click();
      const panel = demo.page.getByRole('dialog', { name: 'Your points' });
      await panel.waitFor();
      await demo.page.locator('[data-loyalty-body]:not([aria-busy])').waitFor();
      return panel.innerText();
    },
    async reopened() {
      await demo.page.goto(demo.link);
      return demo.launcher();
    },
    async shoot(name: string) {
      for (const width of [1280, 390]) {
        await demo.page.setViewportSize({ width, height: 900 });
        const overflow = (await demo.page.evaluate(
          '({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth })',
        )) as { scroll: number; width: number };
        expect(overflow.scroll, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(overflow.width);
        await demo.page.screenshot({ path: `${shots}${name}-${width}.png` });
      }
      await demo.page.setViewportSize({ width: 1280, height: 900 });
    },
    async redeemReward(words = '100 points for 5.00 off', gives = '5.00 off your order') {
      const line = demo.page.locator('.loyalty-panel__line', { hasText: words });
      await line.getByRole('button', { name: 'Redeem' }).click();
      await line.getByRole('button', { name: 'Yes, spend them' }).click();
      const made = demo.page.locator('.loyalty-made');
      await made.waitFor();
      const code = (await made.locator('.loyalty-code__text').innerText()).trim();
      expect(code).toMatch(/^LB-[A-Z2-9]{16}$/);
      expect(await made.innerText()).toContain(gives);
      return code;
    },
    async paidOnce(code: string, sent: () => number) {
      const before = sent();
      await demo.page.getByLabel('Reward code').fill(code);
      await demo.page.getByRole('button', { name: 'Pay with the code' }).click();
      expect(await demo.page.getByRole('alert').innerText()).toContain('This code cannot be used');
      expect(sent()).toBe(before);
      await eventually(async () => {
        const text = await demo.reopened();
        expect(text).toContain('0 points available');
        expect(text).not.toContain(code);
      }, 30_000);
      const trial = demo.bridge.sandbox!.accounts.filter((account) =>
        account.store.snapshot().redemptions.some((each) => each.points === 100),
      );
      expect(trial.flatMap((account) => account.store.snapshot().redemptions)).toHaveLength(1);
    },
  } as DemoStorePage;
  beforeAll(async () => {
    demo.bridge = await startFirstRunBridge();
    const { bridge } = demo;
    await eventually(() => expect(bridge.demo?.played ?? 0).toBeGreaterThanOrEqual(bridge.demo!.handful), 60_000);
    await bridge.engine.drain();
    demo.link = bridge.firstRun!.storefrontLink()!;
    demo.browser = await launchChromium();
    demo.page = await demo.browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  }, 90_000);
  afterAll(async () => {
    await demo.browser?.close();
    await demo.bridge?.stop();
  });
  return demo;
}
