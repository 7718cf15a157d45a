// The theme app extension's blocks (extensions/loyalty-theme) rendered outside Shopify: for the first run's demo
// store page (demo-storefront.ts) and for tests' stand-in store (test/helpers/theme-store.ts). A tiny substitution
// of the few tags and filters the blocks use ({{ }} with the t, json, escape and asset_url filters,
// {% if x == 'y' %}…{% else %}…{% endif %}, comment, schema), NOT Shopify's Liquid: a tag it does not know throws,
// so a block that grows one fails here first. Shopify's own check of the Liquid is theme check (npm run lint:theme).
import { readFileSync } from 'node:fs';

export const EXTENSION_DIR = new URL('../../extensions/loyalty-theme/', import.meta.url).pathname;

export const readExtension = (path: string) => readFileSync(`${EXTENSION_DIR}${path}`, 'utf8');
const locale = JSON.parse(readExtension('locales/en.default.json')) as Record<string, unknown>;

const lookup = (context: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], context);
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The settings' defaults from a block's {% schema %}. */
export function schemaDefaults(source: string): Record<string, unknown> {
  const schema = /\{%-?\s*schema\s*-?%\}([\s\S]*?)\{%-?\s*endschema\s*-?%\}/.exec(source)?.[1];
  const settings = (JSON.parse(schema ?? '{}') as { settings?: Array<{ id: string; default?: unknown }> }).settings;
  return Object.fromEntries((settings ?? []).map((setting) => [setting.id, setting.default]));
}

/** A block's Liquid with `context` (block, routes, template, product, cart), by the substitution above. */
export function renderBlock(source: string, context: Record<string, unknown>, assetBase: string): string {
  const filters: Record<string, (value: unknown) => unknown> = {
    t: (key) => {
      const words = lookup(locale, String(key));
      if (typeof words !== 'string') throw new Error(`no words for ${String(key)} in locales/en.default.json`);
      return escapeHtml(words);
    },
    json: (value) => JSON.stringify(value ?? null),
    escape: (value) => escapeHtml(String(value ?? '')),
    asset_url: (name) => `${assetBase}${String(name)}`,
  };
  let text = source
    .replace(/\s*\{([{%])-/g, '{$1')
    .replace(/-([}%])\}\s*/g, '$1}')
    .replace(/\{%\s*comment\s*%\}[\s\S]*?\{%\s*endcomment\s*%\}/g, '')
    .replace(/\{%\s*schema\s*%\}[\s\S]*?\{%\s*endschema\s*%\}/g, '')
    .replace(
      /\{%\s*if\s+([\w.]+)\s*==\s*'([^']*)'\s*%\}([\s\S]*?)\{%\s*else\s*%\}([\s\S]*?)\{%\s*endif\s*%\}/g,
      (_whole, path: string, literal: string, yes: string, no: string) =>
        lookup(context, path) === literal ? yes : no,
    );
  const unknown = /\{%[\s\S]*?%\}/.exec(text);
  if (unknown) throw new Error(`a Liquid tag this stand-in does not render: ${unknown[0]}`);
  text = text.replace(/\{\{\s*([\s\S]*?)\s*\}\}/g, (_whole, expression: string) => {
    const [head = '', ...piped] = expression.split('|').map((part) => part.trim());
    let value: unknown = /^'[^']*'$/.test(head) ? head.slice(1, -1) : lookup(context, head);
    for (const name of piped) {
      const filter = filters[name];
      if (!filter) throw new Error(`a Liquid filter this stand-in does not render: ${name}`);
      value = filter(value);
    }
    return value === undefined || value === null ? '' : String(value);
  });
  return text;
}
