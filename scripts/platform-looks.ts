// Writes each platform's look for the merchant page outside its admin (PlatformModule.look), from what the
// platform publishes: WordPress's components stylesheet, BigDesign's theme tokens, and Polaris's tokens for the
// tests' stand-in of Polaris. Those packages are development dependencies (they pull React as a peer): the
// stylesheets are generated here, committed, and served as they are; test/unit/platform-looks.test.ts fails when
// a package's upgrade changes what they would be. `npm run looks` writes them again.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bigcommerceLook } from './looks/bigcommerce.ts';
import { lookSheet } from './looks/page-look.ts';
import { polarisLook } from './looks/polaris.ts';
import { wordpressLook } from './looks/wordpress.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each look stylesheet, by its path from the repository's root, as the packages installed make it. */
export function platformLooks(): Record<string, string> {
  const sheet = ({ from, look }: ReturnType<typeof wordpressLook>) => lookSheet(from, look);
  return {
    'adapters/woocommerce/look.css': sheet(wordpressLook()),
    'adapters/bigcommerce/look.css': sheet(bigcommerceLook()),
    'test/helpers/polaris-look.css': sheet(polarisLook()),
  };
}

/** The committed stylesheets that differ from what the packages make now. */
export function staleLooks(): string[] {
  return Object.entries(platformLooks())
    .filter(([path, made]) => {
      try {
        return readFileSync(`${ROOT}${path}`, 'utf8') !== made;
      } catch {
        return true;
      }
    })
    .map(([path]) => path);
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  for (const [path, made] of Object.entries(platformLooks())) {
    writeFileSync(`${ROOT}${path}`, made);
    console.log(`wrote ${path} (${made.length} bytes)`);
  }
