// What every part of the merchant's page shares: where it is shown (inside a platform's admin, or on its own),
// the calls to the admin API's shop routes with the session token, toasts, a form's refusals, and element(),
// which writes text with textContent, never as HTML: orders come from customers.
export const $ = (selector) => document.querySelector(selector);
const own = (name) => document.querySelector(`meta[name="loyalty-bridge-${name}"]`)?.getAttribute('content');
/**
 * Where the page is shown: inside a platform's admin, the global its script defines (session tokens, toasts,
 * the nav), named by the server; elsewhere the bridge's own stand-in, elements.js, with the session the bridge
 * handed the page.
 */
const platformHost = own('host') ? window[own('host')] : undefined;
export const host = platformHost ?? window.loyaltyBridgeHost;
export const EMBEDDED = Boolean(platformHost);
/** Each view's address under the app's in the admin; elsewhere the nav's links go nowhere but to a view. */
export const APP_PATH = own('app-path') ?? '/app';
/** What the nav sends a link that is clicked: the admin's own event, or elements.js's. */
export const NAVIGATE = own('navigate-event') ?? 'loyalty-bridge:navigate';
/** A header whose 1 on a 401 asks for one more try with a fresh token (the admin's own), if the admin has one. */
const RETRY_HEADER = own('retry-header');

export async function call(path, options = {}) {
  // Outside the admin with no session of its own, nothing is asked of the bridge: the page says where to sign in.
  if (host.signedIn === false) {
    const again = host.signInAgain;
    $('#notice').replaceChildren(
      `This page is not signed in: ${host.whereToSignIn}.`,
      ...(again ? [' ', element('a', 'Sign in', { href: again })] : []),
    );
    $('#notice').hidden = false;
    for (const section of document.querySelectorAll('[data-view]')) section.hidden = true;
    throw new Error('unauthorised');
  }
  const send = async () =>
    fetch(`/admin/api${path}`, {
      ...options,
      headers: {
        // App Bridge's session tokens live a minute: one is asked for each call.
        authorization: `Bearer ${await host.idToken()}`,
        'content-type': 'application/json',
        ...(options.headers ?? {}),
      },
    });
  let response = await send();
  // A session token refused on the way (expired, say) is tried once more with a fresh one, as the platform asks.
  if (response.status === 401 && RETRY_HEADER && response.headers.get(RETRY_HEADER) === '1') response = await send();
  if (response.status === 401) {
    const again = host.signInAgain;
    $('#notice').replaceChildren(
      again ? 'Your session has ended: ' : 'Your session could not be confirmed: reload the page.',
      ...(again ? [element('a', 'sign in again', { href: again })] : []),
    );
    $('#notice').hidden = false;
    throw new Error('unauthorised');
  }
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body };
}

export const toast = (message, isError = false) => host.toast.show(message, isError ? { isError: true } : {});

/**
 * What the bridge refused of a form, where it belongs: a line that names one of the form's fields ("brandId: is
 * required") beside that field, the rest in the form's own banner above its button. None: all of them cleared.
 */
export function formProblems(form, lines) {
  for (const field of form.querySelectorAll('[name], [data-setting]')) field.removeAttribute('error');
  const rest = [];
  for (const line of lines.filter(Boolean)) {
    const [, name, message] = /^([A-Za-z_][\w]*): (.+)$/s.exec(line) ?? [];
    // A field, or a rule of rows that writes the setting (rule-rows.js).
    const field = name ? form.querySelector(`[name="${name}"], [data-setting="${name}"]`) : null;
    if (field)
      field.setAttribute('error', field.hasAttribute('error') ? `${field.getAttribute('error')}; ${message}` : message);
    else rest.push(line);
  }
  const banner = form.querySelector('.form-errors');
  if (!banner) return;
  banner.textContent = rest.join('\n');
  banner.hidden = rest.length === 0;
}

// A field's error goes as soon as the merchant changes what it was about.
document.addEventListener('input', (event) => event.target.closest?.('[error]')?.removeAttribute('error'));

export function element(tag, text, attributes = {}) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text;
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}
