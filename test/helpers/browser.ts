// Debian's Chromium, driven by playwright-core, as every browser test uses it
// (a tool's own browser download cannot reach its host here; .ci/run installs
// Chromium with apt-get).
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, tools } from './test-tools.ts';

export { CHROMIUM };
export const chromiumAvailable = tools.chromium;

/** Where a test's screenshots go (test-artifacts/<name>/, not in git), made if missing; ends with a slash. */
export function artifactsDir(name: string): string {
  const dir = new URL(`../../test-artifacts/${name}/`, import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Headless, with nothing of its own on the network; `extraArgs` after the common ones. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}

/** The operator's dashboard at `url`, signed in with `token` as a person types it, and its page shown. */
export async function signInToDashboard(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/admin`);
  await page.fill('#token', token);
  await page.click('#sign-in-form button');
  await page.waitForSelector('#app:not([hidden])');
}

/**
 * Every table cell whose text (or control) is not wholly inside the window and inside the box that clips it (a
 * table scrolled sideways in its box hides what is past the box's edge): each as "cell text: why". Run in the page.
 */
export function cellsOutOfSight(page: Page): Promise<string[]> {
  // A string: the tests are typed without the DOM's names.
  return page.evaluate<string[]>(`(() => {
    const outside = [];
    const cells = [...document.querySelectorAll('td, th')].filter((each) => each.offsetParent !== null);
    for (const cell of cells) {
      let left = 0;
      let right = window.innerWidth;
      for (let box = cell.parentElement; box; box = box.parentElement) {
        if (getComputedStyle(box).overflowX === 'visible') continue;
        const rect = box.getBoundingClientRect();
        left = Math.max(left, rect.left);
        right = Math.min(right, rect.right);
      }
      const range = document.createRange();
      range.selectNodeContents(cell);
      const rects = [...range.getClientRects()].filter((rect) => rect.width > 0);
      for (const rect of rects)
        if (rect.left < left - 1 || rect.right > right + 1) {
          const text = cell.textContent.trim().slice(0, 40);
          outside.push(text + ': ' + Math.round(rect.left) + '–' + Math.round(rect.right) + ' px, seen ' + Math.round(left) + '–' + Math.round(right));
          break;
        }
    }
    return outside;
  })()`);
}
