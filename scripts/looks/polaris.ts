// Polaris's look, from the design tokens Shopify publishes (@shopify/polaris-tokens): for the tests' stand-in of
// Polaris's web components (test/helpers/polaris-fake.ts), since Polaris itself comes from Shopify's CDN, which a
// test does not reach. The merchant page inside Shopify's admin is drawn by Polaris, never by this.
import { createRequire } from 'node:module';
import { installed, type PageLook } from './page-look.ts';

const require = createRequire(import.meta.url);

export const POLARIS_TOKENS_PACKAGE = '@shopify/polaris-tokens';

export function polarisLook(): { from: string; look: PageLook } {
  const { version } = installed(POLARIS_TOKENS_PACKAGE);
  const { themeDefault } = require(POLARIS_TOKENS_PACKAGE) as { themeDefault: Record<string, Record<string, string>> };
  const tokens: Record<string, string> = Object.assign({}, ...Object.values(themeDefault));
  /** A token's value; a name Polaris no longer publishes fails the generator, not the page. */
  const v = (name: string) => {
    const value = tokens[name];
    if (value === undefined) throw new Error(`${POLARIS_TOKENS_PACKAGE} has no token ${name}`);
    return value;
  };
  const tone = (name: string) =>
    `background:${v(`color-bg-surface-${name}`)};border-color:${v(`color-border-${name}`)}`;
  return {
    from: `${POLARIS_TOKENS_PACKAGE} ${version}`,
    look: {
      page: `font-family:${v('font-family-sans')};font-size:${v('font-size-325')};line-height:${v('font-line-height-500')};color:${v('color-text')};background:${v('color-bg')}`,
      title: `font-size:${v('text-heading-lg-font-size')};font-weight:${v('text-heading-lg-font-weight')};margin:0 0 ${v('space-400')}`,
      nav: `border-bottom:${v('border-width-025')} solid ${v('color-border')};margin:0 0 ${v('space-400')}`,
      tab: `font-family:inherit;font-size:inherit;color:${v('color-text-secondary')};padding:${v('space-200')} ${v('space-300')};border:0;background:none`,
      current: `color:${v('color-text')};box-shadow:inset 0 -2px 0 ${v('color-border-emphasis')}`,
      section: `background:${v('color-bg-surface')};border:0;border-radius:${v('border-radius-300')};box-shadow:${v('shadow-bevel-100')};padding:${v('space-400')}`,
      heading: `font-size:${v('text-heading-sm-font-size')};font-weight:${v('text-heading-sm-font-weight')};margin:0 0 ${v('space-200')}`,
      banner: `border:${v('border-width-025')} solid ${v('color-border')};border-radius:${v('border-radius-300')};padding:${v('space-300')};background:${v('color-bg-surface')}`,
      bannerHeading: `font-size:${v('text-heading-sm-font-size')};font-weight:${v('text-heading-sm-font-weight')};margin:0 0 ${v('space-100')}`,
      tones: { info: tone('info'), success: tone('success'), warning: tone('warning'), critical: tone('critical') },
      button: `font-family:inherit;font-size:${v('font-size-325')};font-weight:${v('font-weight-medium')};padding:${v('space-150')} ${v('space-300')};border:0;border-radius:${v('border-radius-200')};background:${v('color-bg-fill')};color:${v('color-text')};box-shadow:${v('shadow-button')}`,
      buttonHover: `background:${v('color-bg-fill-hover')};box-shadow:${v('shadow-button-hover')}`,
      focus: `outline:${v('border-width-050')} solid ${v('color-border-focus')};outline-offset:${v('space-025')}`,
      primary: `background:${v('color-bg-fill-brand')};color:${v('color-text-brand-on-bg-fill')};box-shadow:${v('shadow-button-primary')}`,
      primaryHover: `background:${v('color-bg-fill-brand-hover')};box-shadow:${v('shadow-button-primary-hover')}`,
      label: `font-weight:${v('font-weight-regular')};margin:0 0 ${v('space-100')}`,
      input: `font-family:inherit;font-size:${v('font-size-325')};padding:${v('space-150')} ${v('space-300')};border:${v('border-width-0165')} solid ${v('color-input-border')};border-radius:${v('border-radius-200')};background:${v('color-input-bg-surface')};max-width:32em`,
      inputFocus: `outline:${v('border-width-050')} solid ${v('color-border-focus')};outline-offset:${v('space-025')}`,
      details: `font-size:${v('font-size-325')};color:${v('color-text-secondary')};margin-top:${v('space-100')}`,
      error: `color:${v('color-text-critical')};margin-top:${v('space-100')}`,
      check: `accent-color:${v('color-bg-fill-brand')};margin:0`,
      badge: `font-size:${v('font-size-300')};font-weight:${v('font-weight-medium')};padding:${v('space-050')} ${v('space-200')};border-radius:${v('border-radius-200')};background:${v('color-bg-fill-transparent-secondary')};color:${v('color-text-secondary')}`,
      badgeCritical: `background:${v('color-bg-fill-critical-secondary')};color:${v('color-text-critical')}`,
      tableHeader: `font-weight:${v('font-weight-medium')};color:${v('color-text-secondary')};background:${v('color-bg-surface-secondary')};padding:${v('space-150')} ${v('space-300')};border-bottom:${v('border-width-025')} solid ${v('color-border')}`,
      tableCell: `background:${v('color-bg-surface')};padding:${v('space-150')} ${v('space-300')};border-bottom:${v('border-width-025')} solid ${v('color-border-secondary')}`,
      toast: `background:${v('color-bg-surface-inverse')};color:${v('color-text-inverse')};border-radius:${v('border-radius-200')};padding:${v('space-200')} ${v('space-400')}`,
    },
  };
}
