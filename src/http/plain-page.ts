// A plain page for a person who followed a link (an install, a platform's App
// URL): a title and what to do, nothing that runs. Inside a platform's admin
// it may be framed by the shop's own admin, so that the merchant reads why.
import type { Response } from 'express';

/** Text made safe for HTML, in an element or an attribute. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function plainPage(
  res: Response,
  status: number,
  title: string,
  text: string | readonly string[],
  {
    frameAncestors,
    link,
    form,
  }: {
    frameAncestors?: string;
    link?: { href: string; text: string };
    /** One field, sent by GET: a page that asks for an address. */
    form?: { action: string; name: string; label: string; placeholder: string; button: string };
  } = {},
): void {
  // frameAncestors: the origins a platform's module names; none: nobody.
  const ancestors = frameAncestors ?? "'none'";
  const paragraphs = (typeof text === 'string' ? [text] : text).map((each) => `<p>${escapeHtml(each)}</p>`).join('');
  // Out of a module's admin frame a link opens a tab of its own: the page it leads to may refuse to be framed.
  const newTab = frameAncestors && frameAncestors !== "'none'" ? ' target="_blank" rel="noopener"' : '';
  res
    .status(status)
    .type('html')
    .set('cache-control', 'no-store')
    .set('referrer-policy', 'no-referrer')
    .set('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors ${ancestors}`);
  res.send(
    `<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title><body style="font-family:system-ui;max-width:40em;margin:3em auto"><h1>${escapeHtml(title)}</h1>${paragraphs}${form ? formHtml(form) : ''}${link ? `<p><a href="${escapeHtml(link.href)}"${newTab}>${escapeHtml(link.text)}</a></p>` : ''}</body>`,
  );
}

const formHtml = (form: { action: string; name: string; label: string; placeholder: string; button: string }) =>
  `<form method="get" action="${escapeHtml(form.action)}"><label>${escapeHtml(form.label)} <input id="${escapeHtml(form.name)}" name="${escapeHtml(form.name)}" type="url" required placeholder="${escapeHtml(form.placeholder)}"></label> <button type="submit">${escapeHtml(form.button)}</button></form>`;
