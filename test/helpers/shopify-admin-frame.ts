// The Shopify admin as a browser test plays it: a parent page at
// https://admin.shopify.com that frames the App URL, and App Bridge served
// at its CDN address. Like App Bridge, the script exposes shopify.idToken(),
// which asks the admin (the parent page, over postMessage) for a session
// token; and, as App Bridge does on Shopify's bounce page, when the address
// carries shopify-reload it asks for a fresh token and loads that address
// (of the app's own origin only) with it as id_token. As Shopify's App Home
// documentation describes them, and @shopify/app-bridge-types declares them,
// it also hands the admin what the admin draws for the app: the title bar
// (<s-page heading>), the nav (<s-app-nav>'s links, a click on one sent back
// as a shopify:navigate event on that link), toasts (shopify.toast.show),
// and the save bar of a form with data-save-bar (shown on a change; Save
// submits the form, Discard resets it), and the dialog for optional scopes
// (shopify.scopes.request), answered by the test's window.approveScopes.
import { appToml } from './shopify-app-config.ts';

export const ADMIN_ORIGIN = 'https://admin.shopify.com';

export const fakeAppBridge = (adminOrigin = ADMIN_ORIGIN) => `(() => {
  const OPTIONAL = ${JSON.stringify(appToml().access_scopes.optional_scopes ?? [])};
  const apiKey = document.querySelector('meta[name="shopify-api-key"]')?.content;
  if (!apiKey) throw new Error('App Bridge needs <meta name="shopify-api-key">');
  let next = 0;
  const waiting = new Map();
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || !['id-token', 'scopes'].includes(event.data?.type)) return;
    waiting.get(event.data.id)?.(event.data.type === 'id-token' ? event.data.token : event.data.answer);
    waiting.delete(event.data.id);
  });
  const toAdmin = (message) => window.parent.postMessage(message, '${adminOrigin}');
  // App Bridge's nav is drawn by the admin, not in the app's frame.
  customElements.define('s-app-nav', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'open' }); } });
  let toasts = 0;
  window.shopify = {
    config: { apiKey },
    idToken: () => new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      toAdmin({ type: 'id-token', id, apiKey });
    }),
    // The merchant asked to approve optional scopes in the admin's dialog: { result: 'granted-all' | 'declined-all', detail }.
    // Only optional scopes: "optional scopes can only be requested by the app post-installation"; required ones are
    // granted at install or by releasing a version (shopify.dev, apps/build/authentication-authorization/
    // app-installation/manage-access-scopes). Shopify does not say how it refuses another: the fake rejects.
    scopes: {
      request: (scopes) => scopes.some((scope) => !OPTIONAL.includes(scope))
        ? Promise.reject(new Error('only optional scopes may be requested: ' + scopes.join(',')))
        : new Promise((resolve) => {
        const id = ++next;
        waiting.set(id, resolve);
        toAdmin({ type: 'scopes', id, scopes: [...scopes] });
      }),
    },
    toast: {
      show: (message, options = {}) => {
        const id = 'toast-' + ++toasts;
        toAdmin({ type: 'toast', id, message: String(message), isError: Boolean(options.isError) });
        return id;
      },
      hide: () => undefined,
    },
  };
  const chrome = () => {
    const page = document.querySelector('s-page');
    toAdmin({
      type: 'chrome',
      title: page?.getAttribute('heading') ?? '',
      // The app's name in the admin's sidebar goes to its home: the rel="home" link's address, or the root.
      home: document.querySelector('s-app-nav s-link[rel="home"]')?.getAttribute('href') ?? '/',
      nav: [...document.querySelectorAll('s-app-nav s-link')]
        .filter((link) => link.getAttribute('rel') !== 'home')
        .map((link) => ({ href: link.getAttribute('href'), label: link.textContent.trim() })),
    });
  };
  new MutationObserver(chrome).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['heading', 'href'] });
  const saveBarForm = (target) => target?.closest?.('form[data-save-bar]');
  for (const name of ['input', 'change'])
    document.addEventListener(name, (event) => { if (saveBarForm(event.target)) toAdmin({ type: 'save-bar', shown: true }); }, true);
  for (const name of ['submit', 'reset'])
    document.addEventListener(name, (event) => { if (saveBarForm(event.target)) toAdmin({ type: 'save-bar', shown: false }); }, true);
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    if (event.data?.type === 'navigate') {
      const link = [...document.querySelectorAll('s-app-nav s-link')].find((each) => each.getAttribute('href') === event.data.href);
      link?.dispatchEvent(new CustomEvent('shopify:navigate', { bubbles: true }));
    }
    if (event.data?.type === 'save-bar-action') {
      const form = document.querySelector('form[data-save-bar]');
      if (event.data.action === 'save') form?.requestSubmit();
      else form?.reset();
    }
  });
  const reload = new URLSearchParams(window.location.search).get('shopify-reload');
  if (reload) {
    const target = new URL(reload);
    if (target.origin !== window.location.origin) throw new Error('App Bridge reloads only the app itself');
    window.shopify.idToken().then((token) => {
      target.searchParams.set('id_token', token);
      window.location.replace(target.toString());
    });
  }
})();`;

/** The admin: frames the app and answers its requests for session tokens with what window.mintSessionToken gives. */
export const adminPage = (
  appUrl: string,
  appOrigin: string,
) => `<!doctype html><meta charset="utf-8"><title>Shopify admin</title>
<h1>Shopify admin · Apps · <button id="app-home">loyalty-bridge</button></h1>
<nav id="app-nav"></nav>
<div id="title-bar"></div>
<div id="save-bar" hidden><button id="save-bar-discard">Discard</button> <button id="save-bar-save">Save</button></div>
<ul id="toasts"></ul>
<ul id="scope-requests" hidden></ul>
<iframe id="app" src="${appUrl}" style="width:100%;max-width:1240px;height:900px;border:0"></iframe>
<script>
  const app = () => document.getElementById('app').contentWindow;
  window.addEventListener('message', async (event) => {
    if (event.origin !== '${appOrigin}') return;
    const message = event.data ?? {};
    if (message.type === 'id-token')
      event.source.postMessage({ type: 'id-token', id: message.id, token: await window.mintSessionToken(message.apiKey) }, event.origin);
    // The admin's dialog for optional scopes: what the merchant answers is window.approveScopes's (declined if none).
    if (message.type === 'scopes') {
      const granted = window.approveScopes ? await window.approveScopes(message.scopes) : false;
      const answer = granted
        ? { result: 'granted-all', detail: { granted: message.scopes, declined: [] } }
        : { result: 'declined-all', detail: { granted: [], declined: message.scopes } };
      document.getElementById('scope-requests').append(Object.assign(document.createElement('li'), { textContent: message.scopes.join(',') }));
      event.source.postMessage({ type: 'scopes', id: message.id, answer }, event.origin);
    }
    if (message.type === 'toast') {
      const item = document.createElement('li');
      item.textContent = message.message;
      item.className = message.isError ? 'error' : 'success';
      document.getElementById('toasts').append(item);
    }
    if (message.type === 'chrome') {
      document.getElementById('title-bar').textContent = message.title;
      document.getElementById('app-home').onclick = () => app().postMessage({ type: 'navigate', href: message.home }, '${appOrigin}');
      const nav = document.getElementById('app-nav');
      // How many times the admin took the app's title and nav: a test waits on it.
      nav.dataset.updates = String(Number(nav.dataset.updates ?? 0) + 1);
      // Its buttons are drawn again only when the app's links change, as the admin's own nav is: every change in the
      // app's page sends its chrome again, and a button thrown away between a press and its release loses the click.
      const drawn = [...nav.children].map((button) => [button.dataset.href, button.textContent]);
      const asked = message.nav.map((link) => [link.href, link.label]);
      if (JSON.stringify(drawn) !== JSON.stringify(asked))
        nav.replaceChildren(...message.nav.map((link) => {
          const button = document.createElement('button');
          button.textContent = link.label;
          button.dataset.href = link.href;
          button.addEventListener('click', () => app().postMessage({ type: 'navigate', href: link.href }, '${appOrigin}'));
          return button;
        }));
    }
    if (message.type === 'save-bar') document.getElementById('save-bar').hidden = !message.shown;
  });
  for (const action of ['save', 'discard'])
    document.getElementById('save-bar-' + action).addEventListener('click', () => app().postMessage({ type: 'save-bar-action', action }, '${appOrigin}'));
</script>`;
