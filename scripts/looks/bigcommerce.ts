// BigDesign's look (BigCommerce's control panel), from the theme tokens @bigcommerce/big-design-theme publishes:
// its colours, spacing, typography, radii, borders and shadows, set on the parts BigDesign's components draw
// (Panel, Button, Input, Message, Badge, Tabs, Table).
import { createRequire } from 'node:module';
import { installed, type PageLook } from './page-look.ts';

const require = createRequire(import.meta.url);

export const BIGDESIGN_PACKAGE = '@bigcommerce/big-design-theme';

/** The theme's styled-components fragments (a border, a shadow) as CSS text. */
type Fragment = string | number | null | undefined | ((props: { theme: unknown }) => Fragment) | Fragment[];

interface BigDesignTheme {
  colors: Record<string, string>;
  spacing: Record<string, string>;
  typography: { fontFamily: string; fontSize: Record<string, string>; fontWeight: Record<string, number> };
  lineHeight: Record<string, string>;
  borderRadius: Record<string, string>;
  border: Record<string, Fragment>;
  shadow: Record<string, Fragment>;
}

export function bigcommerceLook(): { from: string; look: PageLook } {
  const { version } = installed(BIGDESIGN_PACKAGE);
  const { theme } = require(BIGDESIGN_PACKAGE) as { theme: BigDesignTheme };
  const css = (fragment: Fragment): string =>
    typeof fragment === 'function'
      ? css(fragment({ theme }))
      : Array.isArray(fragment)
        ? fragment.map(css).join('')
        : String(fragment ?? '');
  const { colors: c, spacing: s, typography: t, lineHeight: lh, borderRadius: r } = theme;
  const border = css(theme.border.box).replace(/;$/, '');
  /** A message's colours by tone, as BigDesign's Message draws them: a tint, and a bar of the tone's colour. */
  const tone = (name: string) =>
    `background:${c[`${name}10`]};border-color:${c[`${name}30`]};border-left-color:${c[`${name}40`]}`;
  return {
    from: `${BIGDESIGN_PACKAGE} ${version}`,
    look: {
      page: `font-family:${t.fontFamily};font-size:${t.fontSize.medium};line-height:${lh.medium};color:${c.secondary70};background:${c.secondary10}`,
      title: `font-size:${t.fontSize.xxLarge};font-weight:${t.fontWeight.regular};line-height:${lh.xxLarge};color:${c.secondary70};margin:0 0 ${s.xLarge}`,
      nav: `border-bottom:${border};gap:${s.xSmall};margin:0 0 ${s.xLarge}`,
      tab: `font-family:inherit;font-size:${t.fontSize.medium};color:${c.secondary60};padding:${s.small} ${s.medium};border:0;background:none`,
      current: `color:${c.primary40};box-shadow:inset 0 -4px 0 ${c.primary40}`,
      section: `background:${c.white};border:0;${css(theme.shadow.raised).replace(/;$/, '')};padding:${s.xLarge}`,
      heading: `font-size:${t.fontSize.xLarge};font-weight:${t.fontWeight.regular};line-height:${lh.xLarge};color:${c.secondary70};margin:0 0 ${s.medium}`,
      banner: `border:${border};border-left-width:4px;border-radius:${r.normal};padding:${s.medium} ${s.large}`,
      bannerHeading: `font-size:${t.fontSize.medium};font-weight:${t.fontWeight.semiBold};margin:0 0 ${s.xxSmall}`,
      tones: { info: tone('primary'), success: tone('success'), warning: tone('warning'), critical: tone('danger') },
      button: `font-family:inherit;font-size:${t.fontSize.medium};font-weight:${t.fontWeight.regular};height:2.25rem;padding:0 ${s.medium};border:${border};border-radius:${r.normal};background:${c.white};color:${c.primary40}`,
      buttonHover: `background:${c.primary10}`,
      focus: `outline:none;box-shadow:0 0 0 4px ${c.primary20}`,
      primary: `background:${c.primary40};border-color:${c.primary40};color:${c.white}`,
      primaryHover: `background:${c.primary50};border-color:${c.primary50}`,
      label: `font-size:${t.fontSize.medium};font-weight:${t.fontWeight.semiBold};color:${c.secondary70};margin:0 0 ${s.xxSmall}`,
      input: `font-family:inherit;font-size:${t.fontSize.medium};height:2.25rem;padding:0 ${s.small};border:${border};border-radius:${r.normal};background:${c.white};color:${c.secondary70};max-width:32em`,
      inputFocus: `outline:none;border-color:${c.primary40};box-shadow:0 0 0 4px ${c.primary20}`,
      details: `font-size:${t.fontSize.small};color:${c.secondary60};margin-top:${s.xxSmall}`,
      error: `font-size:${t.fontSize.small};color:${c.danger40};margin-top:${s.xxSmall}`,
      check: `accent-color:${c.primary40};width:1.25rem;height:1.25rem;margin:0`,
      badge: `font-size:${t.fontSize.small};font-weight:${t.fontWeight.semiBold};text-transform:uppercase;padding:0 ${s.xSmall};border-radius:${r.normal};background:${c.secondary50};color:${c.white}`,
      badgeCritical: `background:${c.danger40}`,
      tableHeader: `font-size:${t.fontSize.small};font-weight:${t.fontWeight.semiBold};color:${c.secondary60};background:${c.secondary10};padding:${s.small} ${s.medium};border-bottom:${border}`,
      tableCell: `background:${c.white};padding:${s.small} ${s.medium};border-bottom:1px solid ${c.secondary20}`,
      toast: `background:${c.secondary70};color:${c.white};padding:${s.small} ${s.medium};${css(theme.shadow.floating).replace(/;$/, '')}`,
    },
  };
}
