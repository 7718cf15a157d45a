// Each platform's look for the merchant page is generated from what the platform publishes
// (scripts/platform-looks.ts) and committed: made again here from the packages installed, it must be what is
// committed, so that a package's upgrade that changes a look shows, and `npm run looks` brings it in. And each
// module that has a look names a stylesheet that is there.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bigCommerceModule } from '../../adapters/bigcommerce/module.ts';
import { wooModule } from '../../adapters/woocommerce/module.ts';
import { platformLooks, staleLooks } from '../../scripts/platform-looks.ts';

describe('the platforms’ looks', () => {
  it('are what the packages installed make of them', () => {
    expect(staleLooks()).toEqual([]);
  });

  it('style every part the page draws, with the platform’s own colours, and stay small', () => {
    const looks = platformLooks();
    expect(Object.keys(looks)).toHaveLength(3);
    for (const [path, css] of Object.entries(looks)) {
      for (const part of ['button', 'input', 'label', 'section', 'banner', 'tab', 'current', 'badge'])
        expect(css, `${path}: ${part}`).toContain(`::part(${part})`);
      expect(css.length, path).toBeLessThan(8_000);
    }
    // Each its own: WordPress's blue, BigDesign's, Polaris's text colour.
    expect(looks['adapters/woocommerce/look.css']).toContain('background:#3858e9');
    expect(looks['adapters/bigcommerce/look.css']).toContain('background:#3C64F4');
    expect(looks['test/helpers/polaris-look.css']).toContain('rgba(48, 48, 48, 1)');
  });

  it('are the stylesheets the modules name', () => {
    for (const module of [wooModule, bigCommerceModule])
      expect(fileURLToPath(module.look)).toBe(
        fileURLToPath(new URL(`../../adapters/${module.name}/look.css`, import.meta.url)),
      );
    expect(readFileSync(wooModule.look, 'utf8')).toBe(platformLooks()['adapters/woocommerce/look.css']);
  });
});
