// Walks the merchant page's four views, as a merchant would by its nav, at a desktop's width and a phone's, and
// saves a screenshot of each (the guides' pictures, docs/connect-*.md: `npm run screenshots`). At every width, the page never
// scrolls sideways: a merchant notices that at once on a phone (the orders table scrolls inside its own box).
import type { Frame, Page } from 'playwright-core';
import { expect } from 'vitest';

/** The widths the pictures are taken at: a laptop's, and a phone's. */
export const WIDTHS = [1280, 390] as const;
/** Each view, by its nav label, and its name in the pictures' file names. */
export const VIEWS = [
  { label: 'Home', name: 'home' },
  { label: 'Set up', name: 'setup' },
  { label: 'Orders', name: 'orders' },
  { label: 'Data requests', name: 'privacy' },
] as const;

export interface ViewWalk {
  page: Page;
  /** The page's own document: the tab itself, or the admin's frame holding it. */
  frameOf: () => Frame;
  /** Opens a view as the merchant does, from the nav (the admin's, or the page's own). */
  open: (label: string) => Promise<void>;
  /** Where its pictures go: test-artifacts/<name>/ (artifactsDir). */
  shots: string;
  /** The admin's frame that holds the page, pictured alone (the admin around it is the test's stand-in); none: the tab. */
  frameSelector?: string;
  height?: number;
}

/** Takes `views-<width>-<view>.png` of each view at each width, and checks nothing overflows sideways. */
export async function walkViews({ page, frameOf, open, shots, frameSelector, height = 1000 }: ViewWalk): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height });
    for (const { label, name } of VIEWS) {
      await open(label);
      const frame = frameOf();
      await frame.locator(`#page[data-loaded="${name}"]`).waitFor();
      // Measured in the page's own document (a string, run there: this file has no DOM of its own).
      const overflow = (await frame.evaluate(
        '({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth })',
      )) as { scroll: number; width: number };
      expect(overflow.scroll, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(overflow.width);
      const path = `${shots}views-${width}-${name}.png`;
      await (frameSelector
        ? page.locator(frameSelector).screenshot({ path })
        : page.screenshot({ path, fullPage: true }));
    }
  }
  await page.setViewportSize({ width: WIDTHS[0], height });
}
