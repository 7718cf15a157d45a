// The WordPress admin's look, from the stylesheet @wordpress/components publishes (build-style/style.css): its
// buttons, text inputs, notices, panels, tabs, badges and snackbar, with the package's own defaults for its
// custom properties. What the package draws with emotion rather than its stylesheet (a field's label and help
// line) and the admin's own frame (wp-admin's CSS, which no package publishes) are the few values written here.
import { readFileSync } from 'node:fs';
import { ruleText, valueOf } from './css-rules.ts';
import { installed, type PageLook } from './page-look.ts';

export const WORDPRESS_PACKAGE = '@wordpress/components';

export function wordpressLook(): { from: string; look: PageLook } {
  const { dir, version } = installed(WORDPRESS_PACKAGE);
  const css = readFileSync(`${dir}build-style/style.css`, 'utf8');
  const rule = (selector: string, leave: readonly string[] = []) => ruleText(css, selector, leave);
  const value = (selector: string, property: string) => valueOf(css, selector, property);
  const font = value('.components-notice', 'font-family');
  const text = value('.components-button', 'color');
  const accent = value('.components-button.is-primary', 'background');
  const panelBorder = value('.components-panel', 'border');
  /** A notice's colours, as its tone sets them. */
  const tone = (selector: string) =>
    [
      `background-color:${value(selector, '--wp-components-notice-background-color')}`,
      `border-color:${value(selector, '--wp-components-notice-border-color')}`,
      `color:${value(selector, '--wp-components-notice-text-color')}`,
    ].join(';');
  return {
    from: `${WORDPRESS_PACKAGE} ${version}, build-style/style.css`,
    look: {
      // wp-admin's body: its grey, 13px text.
      page: `font-family:${font};font-size:${value('.components-notice', 'font-size')};line-height:1.4;color:${text};background:#f0f0f1`,
      // wp-admin's page heading (.wrap h1).
      title: 'font-size:23px;font-weight:400;line-height:1.3;margin:0 0 16px',
      nav: `${rule('.components-tab-panel__tabs')};flex-wrap:wrap;border-bottom:${panelBorder};margin:0 0 16px`,
      tab: `${rule('.components-tab-panel__tabs-item')};font-family:inherit;font-size:inherit`,
      current: `box-shadow:inset 0 -2px 0 ${accent};color:${accent}`,
      section: `${rule('.components-panel')};${rule('.components-panel__body.is-opened')};border-radius:${value('.components-button', 'border-radius')}`,
      heading: `font-size:14px;font-weight:${value('.components-panel__body-toggle.components-button', 'font-weight')};margin:0 0 16px`,
      banner: `${rule('.components-notice', ['display', 'grid-template-columns', 'align-items', 'border', 'background-color', 'color'])};border:1px solid`,
      bannerHeading: 'font-size:inherit;font-weight:600;margin:0 0 4px',
      tones: {
        info: tone('.components-notice'),
        success: tone('.components-notice.is-success'),
        warning: tone('.components-notice.is-warning'),
        critical: tone('.components-notice.is-error'),
      },
      button: `${rule('.components-button')};${rule('.components-button.is-secondary')}`,
      buttonHover: `box-shadow:inset 0 0 0 1px ${accent}`,
      focus: rule('.components-button:focus:not(:active)'),
      primary: rule('.components-button.is-primary'),
      primaryHover: rule('.components-button.is-primary:hover:not(:disabled)'),
      // BaseControl's label and help, which the package draws with emotion.
      label: 'font-size:11px;font-weight:500;line-height:1.4;text-transform:uppercase;margin:0 0 8px',
      // 13px as from a tablet's width up (the package's 16px is for phones, whose browsers zoom on smaller text).
      input: `${rule('.components-text-control__input[type=text]')};font-size:13px;max-width:32em;box-sizing:border-box`,
      inputFocus: `border-color:${accent};box-shadow:0 0 0 0.5px ${accent};outline:2px solid transparent`,
      details: 'font-size:12px;font-style:normal;color:#757575;margin-top:8px',
      error: `color:${value('.components-notice.is-error', '--wp-components-notice-text-color')};font-size:12px;margin-top:8px`,
      check: `accent-color:${accent};width:16px;height:16px;margin:0`,
      badge: `${rule('.components-badge', ['line-height', 'background-color', 'color'])};${rule('.components-badge:where(.is-default)')};${rule('.components-badge__flex-wrapper', ['display', 'align-items', 'gap', 'max-width'])}`,
      badgeCritical: `background-color:color-mix(in srgb, #fff 90%, ${value('.components-badge.is-error', '--base-color')});color:color-mix(in srgb, #000 50%, ${value('.components-badge.is-error', '--base-color')})`,
      tableHeader: `font-weight:600;padding:8px 10px;border-bottom:${panelBorder};background:#fff`,
      tableCell: `padding:8px 10px;border-bottom:${panelBorder};background:#fff`,
      toast: `${rule('.components-snackbar', ['width', 'max-width', 'cursor', 'pointer-events'])}`,
    },
  };
}
