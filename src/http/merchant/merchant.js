// The merchant's page inside a platform's admin: Polaris web components for what is drawn, the admin's own
// script for its parts (the title bar, the nav, toasts, a form's save bar) and the session token each call
// carries; the server's meta says which script that is (merchant-page.ts). Everything shown comes from the admin
// API's shop routes, which see this shop alone. This file switches the views and names none: index.html declares
// them, each a link of its nav (data-nav, in the nav's order; the heading is the link's data-title, else its text)
// and a data-view section, and each is the module of its name (<view>.js), whose load() draws it; page.js holds
// what they share.
import { $, APP_PATH, EMBEDDED, NAVIGATE, call, formProblems, host, toast } from './page.js';

const links = [...$('#app-nav').content.querySelectorAll('s-link[data-nav]')];
const VIEWS = links.map((link) => link.dataset.nav);
/** The view of the app's own address (the admin's link to the app, rel="home"), and of any unknown one. */
const HOME = links.find((link) => link.getAttribute('rel') === 'home')?.dataset.nav ?? VIEWS[0];
const titles = Object.fromEntries(
  links.map((link) => [link.dataset.nav, link.dataset.title ?? link.textContent.trim()]),
);
// Every view's module, all at once and before the nav is in the page, as static imports were: a view's forms
// answer as soon as it can be reached. Only names the page declares are imported, never one of the address.
const loaders = Object.fromEntries(
  await Promise.all(VIEWS.map(async (view) => [view, (await import(`./${view}.js`)).load])),
);

// --- Views, switched in the page: App Bridge's nav asks by an event, a reload comes by the address.

function viewOf(path) {
  const name = path.startsWith(`${APP_PATH}/`) ? path.slice(APP_PATH.length + 1) : HOME;
  return VIEWS.includes(name) ? name : HOME;
}

async function show(view) {
  // What the last view said no longer holds here: its notice and its forms' errors go (a call of this view that
  // fails again says so again).
  $('#notice').hidden = true;
  host.toast.clear?.();
  for (const form of document.querySelectorAll('form')) formProblems(form, []);
  for (const section of document.querySelectorAll('[data-view]')) section.hidden = section.dataset.view !== view;
  // The nav's tab for this view, where the bridge's stand-in draws the nav (the admin marks its own).
  for (const link of document.querySelectorAll('s-app-nav s-link[data-nav]'))
    link.toggleAttribute('data-current', link.dataset.nav === view);
  $('#page').setAttribute('heading', titles[view]);
  delete $('#page').dataset.loaded;
  try {
    await loaders[view]();
  } catch (error) {
    if (error.message !== 'unauthorised') toast('The page could not be loaded; try again.', true);
  }
  // Which view has all it asked for drawn (a test waits for it before its picture).
  $('#page').dataset.loaded = view;
}

function go(path) {
  // Inside the admin each view has its own address (a reload opens it again); elsewhere the page's own address
  // is the platform's callback, which a reload must ask for as it is.
  if (EMBEDDED) history.pushState(null, '', path);
  void show(viewOf(path));
}

document.addEventListener(NAVIGATE, (event) => {
  const href = event.target.getAttribute('href');
  if (href) go(href);
});
// Only now the nav: App Bridge shows it in the admin as soon as it is in the page, and a click before this listener
// would be lost (the merchant would ask for Orders and stay on Home).
const nav = $('#app-nav').content.cloneNode(true);
for (const link of nav.querySelectorAll('s-link[data-nav]'))
  link.setAttribute('href', link.dataset.nav === HOME ? APP_PATH : `${APP_PATH}/${link.dataset.nav}`);
document.body.prepend(nav);
window.addEventListener('popstate', () => void show(viewOf(location.pathname)));
$('#go-setup').addEventListener('click', () => go(`${APP_PATH}/setup`));

// Outside the admin, nothing else says whose page this is: a session of another store must not pass for one's own.
if (!EMBEDDED && host.signedIn)
  void call('/session').then(({ status, body }) => {
    if (status !== 200) return;
    $('#signed-in').textContent = `Signed in to ${body.storeName ?? body.shop}`;
    $('#signed-in').hidden = false;
  });
void show(viewOf(location.pathname));
