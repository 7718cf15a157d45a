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
  { frameAncestors, link }: { frameAncestors?: string; link?: { href: string; text: string } } = {},
): void {
  // frameAncestors: the origins a platform's module names; none: nobody.
  const ancestors = frameAncestors ?? "'none'";
  const paragraphs = (typeof text === 'string' ? [text] : text).map((each) => `<p>${escapeHtml(each)}</p>`).join('');
  res
    .status(status)
    .type('html')
    .set('cache-control', 'no-store')
    .set('referrer-policy', 'no-referrer')
    .set('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors ${ancestors}`);
  res.send(
    `<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title><body style="font-family:system-ui;max-width:40em;margin:3em auto"><h1>${escapeHtml(title)}</h1>${paragraphs}${link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : ''}</body>`,
  );
}
