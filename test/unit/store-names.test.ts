// A store's name as the merchant's page shows it (adapters/shared/store-names.ts): the merchant's own text, on
// one line, and never longer than the page has room for.
import { describe, expect, it } from 'vitest';
import { STORE_NAME_MAX, storeNameText } from '../../adapters/shared/store-names.ts';

describe('a store’s name, as its page shows it', () => {
  it('keeps what the merchant typed, on one line', () => {
    expect(storeNameText('  Tom & Jerry’s <Corner>\n\tShop  ')).toBe('Tom & Jerry’s <Corner> Shop');
    expect(storeNameText('Café\u0000 Ünïcode 🛍️')).toBe('Café Ünïcode 🛍️');
  });

  it('cuts a long name at the limit, with an ellipsis, never inside a character', () => {
    const cut = storeNameText(`${'🛍'.repeat(60)}${'a'.repeat(90)}`)!;
    expect([...cut]).toHaveLength(STORE_NAME_MAX);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut.startsWith('🛍'.repeat(60))).toBe(true);
  });

  it('is no name at all when the platform gives none, or nothing but spaces', () => {
    for (const raw of [undefined, null, 42, '', '   \n'] as const) expect(storeNameText(raw)).toBeUndefined();
  });
});
