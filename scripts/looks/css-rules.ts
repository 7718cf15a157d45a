// Reads a compiled stylesheet a platform publishes (WordPress's components) into its top-level rules, so that the
// generator takes a rule's declarations as the package has them rather than copying values by hand. Rules inside
// @media, @keyframes and the like are left out: the page's look needs the plain rules alone.

/** A rule's declarations by property, in the order the stylesheet gives them (a later one wins). */
export type Declarations = Map<string, string>;

/** `text` split at `separator` outside brackets and quotes. */
function splitTop(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote && text[i - 1] !== '\\') quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter(Boolean);
}

/** The stylesheet's top-level rules: each selector of a rule's list, with the rule's declarations. */
export function topLevelRules(css: string): Array<{ selectors: string[]; body: string }> {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const rules: Array<{ selectors: string[]; body: string }> = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{', i);
    if (open < 0) break;
    const prelude = text.slice(i, open).trim();
    // The block's end, past any block nested in it (an at-rule's).
    let depth = 1;
    let close = open + 1;
    for (; close < text.length && depth > 0; close++) {
      if (text[close] === '{') depth++;
      else if (text[close] === '}') depth--;
    }
    if (!prelude.startsWith('@'))
      rules.push({ selectors: splitTop(prelude.replace(/\s+/g, ' '), ','), body: text.slice(open + 1, close - 1) });
    i = close;
  }
  return rules;
}

/** The declarations of every rule whose selector list holds `selector` exactly, merged in the stylesheet's order. */
export function declarationsOf(css: string, selector: string): Declarations {
  const found: Declarations = new Map();
  for (const rule of topLevelRules(css)) {
    if (!rule.selectors.includes(selector)) continue;
    for (const declaration of splitTop(rule.body, ';')) {
      const colon = declaration.indexOf(':');
      if (colon < 0) continue;
      const property = declaration.slice(0, colon).trim();
      const value = declaration
        .slice(colon + 1)
        .replace(/\s*!important\s*$/, '')
        .replace(/\s+/g, ' ')
        .trim();
      found.delete(property);
      found.set(property, value);
    }
  }
  if (found.size === 0) throw new Error(`the stylesheet has no rule for ${selector}`);
  return found;
}

/**
 * `value` with each var() replaced by its fallback: the package's own default, which is what the platform's admin
 * shows unless a theme says otherwise (the page sets none of the package's custom properties).
 */
export function withFallbacks(value: string): string {
  let out = value;
  for (;;) {
    const at = out.search(/var\(--[\w-]+\s*,/);
    if (at < 0) return out;
    let depth = 0;
    let end = at;
    for (; end < out.length; end++) {
      if (out[end] === '(') depth++;
      else if (out[end] === ')' && --depth === 0) break;
    }
    const inner = out.slice(at + 4, end);
    out = out.slice(0, at) + inner.slice(inner.indexOf(',') + 1).trim() + out.slice(end + 1);
  }
}

/** `selector`'s declarations as CSS text, with their fallbacks taken (withFallbacks), but for `leave`. */
export function ruleText(css: string, selector: string, leave: readonly string[] = []): string {
  return [...declarationsOf(css, selector)]
    .filter(([property]) => !leave.includes(property) && !property.startsWith('--'))
    .map(([property, value]) => `${property}:${withFallbacks(value)}`)
    .join(';');
}

/** One declaration's value, with its fallbacks taken. */
export const valueOf = (css: string, selector: string, property: string): string => {
  const value = declarationsOf(css, selector).get(property);
  if (value === undefined) throw new Error(`${selector} sets no ${property}`);
  return withFallbacks(value);
};
