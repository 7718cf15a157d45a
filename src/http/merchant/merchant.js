// The merchant's page inside a platform's admin: Polaris web components for what is drawn, the admin's own
// script for its parts (the title bar, the nav, toasts, a form's save bar) and the session token each call
// carries; the server's meta says which script that is (merchant-page.ts). Everything shown comes from the admin
// API's shop routes, which see this shop alone. This file switches the views; each view is a module of its own:
// home.js, setup.js (with storefront.js, rewards.js, try-it.js), orders.js (with order-detail.js, resync.js,
// by-hand.js) and privacy.js; page.js holds what they share.
import { $, APP_PATH, EMBEDDED, NAVIGATE, call, formProblems, host, toast } from './page.js';
import { loadHome } from './home.js';
import { loadSetup } from './setup.js';
import { loadOrders } from './orders.js';
import { loadDataRequests } from './privacy.js';
import './try-it.js';
import './by-hand.js';

const VIEWS = ['home', 'setup', 'orders', 'privacy'];

// --- Views, switched in the page: App Bridge's nav asks by an event, a reload comes by the address.

function viewOf(path) {
  const name = path.startsWith(`${APP_PATH}/`) ? path.slice(APP_PATH.length + 1) : 'home';
  return VIEWS.includes(name) ? name : 'home';
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
  const titles = { home: 'Loyalty points', setup: 'Set up', orders: 'Orders', privacy: 'Data requests' };
  $('#page').setAttribute('heading', titles[view]);
  delete $('#page').dataset.loaded;
  try {
    await { home: loadHome, setup: loadSetup, orders: loadOrders, privacy: loadDataRequests }[view]();
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
  link.setAttribute('href', link.dataset.nav === 'home' ? APP_PATH : `${APP_PATH}/${link.dataset.nav}`);
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
