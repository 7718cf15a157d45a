// The one list of platforms: a platform registered at start may not take a shipped one's name, a path the
// bridge serves itself, or another part's setting; the directory the pages read names every platform once.
import { describe, expect, it } from 'vitest';
import { registrationProblems } from '../../src/composition/module-registration.ts';
import { platformDirectory, PLATFORMS } from '../../src/platform-registry.ts';
import type { AnyPlatformModule } from '../../src/core/platform-module.ts';
import { secret } from '../../src/setting-kinds.ts';
import { tinyShop } from '../platforms/tinyshop/module.ts';

const named = (name: string, settings: AnyPlatformModule['settings'] = {}): AnyPlatformModule => ({
  ...tinyShop,
  name,
  settings,
});

describe('registering a platform', () => {
  it('takes one with a name and settings of its own', () => {
    expect(registrationProblems([tinyShop])).toEqual([]);
  });

  it('refuses a shipped name, a path of the bridge, a name of the wrong shape, and a name twice', () => {
    expect(
      registrationProblems([named('shopify'), named('admin'), named('Tiny Shop'), named('parcel'), named('parcel')]),
    ).toEqual([
      'shopify: the name is taken already',
      'admin: the name is taken already',
      "Tiny Shop: a platform's name is 2 to 31 lower-case letters, digits or -",
      'parcel: the name is taken already',
    ]);
  });

  it('refuses a setting that the bridge or another platform has', () => {
    expect(
      registrationProblems([
        named('parcel', { ADMIN_TOKEN: secret(), SHOPIFY_API_SECRET: secret(), PARCEL_KEY: secret() }),
        named('crate', { PARCEL_KEY: secret() }),
      ]),
    ).toEqual([
      "parcel: its setting ADMIN_TOKEN is another part's already",
      "parcel: its setting SHOPIFY_API_SECRET is another part's already",
      "crate: its setting PARCEL_KEY is another part's already",
    ]);
  });

  it('lists every platform once, shipped first, with the names a person reads', () => {
    const directory = platformDirectory([tinyShop]);
    expect(directory.map((each) => each.name)).toEqual([...PLATFORMS, 'tinyshop']);
    expect(directory.map((each) => each.names.platform)).toEqual(['Shopify', 'WooCommerce', 'BigCommerce', 'TinyShop']);
  });
});
