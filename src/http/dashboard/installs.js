// The dashboard's install panels: one for each platform whose app the operator installs on a shop from here
// (GET /admin/api/platforms: installs), with its shops a page at a time and the form that starts an install.
/* global $, api, cell, whenNode, pagedList */
/* exported loadInstalls */

/** The platforms whose app the operator installs on a shop, each with its panel (a promise, asked once). */
let installPanels = null;

async function installPlatforms() {
  const { body } = await api('/platforms');
  return body.platforms.filter((platform) => platform.installs);
}

/** An element with its properties and children. */
function made(tag, properties = {}, children = []) {
  const element = Object.assign(document.createElement(tag), properties);
  element.append(...children);
  return element;
}

/** A panel's parts, filled in by installPanel: its shops, a page at a time, and the install form. */
function installPanelParts() {
  const search = made('input', { className: 'install-search', type: 'search', placeholder: 'find a shop' });
  search.setAttribute('aria-label', 'filter shops');
  const heads = ['Shop', 'Access', 'Token expires', 'Scopes'].map((text) => made('th', { textContent: text }));
  const shop = made('input', { className: 'install-shop', required: true });
  return made('section', { className: 'install-panel', hidden: true }, [
    made('h2'),
    made('form', { className: 'list-tools' }, [search, made('nav', { className: 'install-pages' })]),
    made('div', { className: 'scroll' }, [
      made('table', {}, [made('thead', {}, [made('tr', {}, heads)]), made('tbody')]),
    ]),
    made('form', { className: 'install-form', hidden: true }, [
      made('label', {}, [made('span', { className: 'install-label' }), ' ', shop]),
      made('button', { type: 'submit', textContent: 'Install' }),
    ]),
  ]);
}

function installPanel(platform) {
  const panel = installPanelParts();
  panel.id = `install-${platform.name}`;
  panel.querySelector('h2').textContent = `${platform.names.platform} ${platform.names.shop}s`.trim();
  panel.querySelector('.install-label').textContent = `Install on a ${platform.names.shop}`;
  panel.querySelector('.install-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    // Started by the signed-in operator, the shop becomes one of the bridge's; then off to its consent screen, and back.
    const { status, body } = await api(`/${platform.name}/installs`, {
      method: 'POST',
      body: JSON.stringify({ shop: panel.querySelector('.install-shop').value.trim().toLowerCase() }),
    });
    if (status !== 201) return void alert(`Not installed: ${body.error}`);
    window.location.assign(body.next);
  });
  $('#installs').append(panel);
  const list = pagedList({
    search: panel.querySelector('.install-search'),
    nav: panel.querySelector('.install-pages'),
    text: (shop) => shop.shop,
  });
  panel.querySelector('.install-pages').setAttribute('aria-label', `pages of ${platform.names.shop}s`);
  return { name: platform.name, panel, list };
}

async function loadInstalls() {
  installPanels ??= installPlatforms().then(
    (platforms) => platforms.map(installPanel),
    (error) => {
      installPanels = null;
      throw error;
    },
  );
  await Promise.all((await installPanels).map(loadInstallPanel));
}

async function loadInstallPanel({ name, panel, list }) {
  const { status, body } = await api(`/${name}/shops`);
  if (status !== 200) return void (panel.hidden = true);
  panel.hidden = body.shops.length === 0 && !body.canInstall;
  panel.querySelector('.install-form').hidden = !body.canInstall;
  panel.querySelector('.install-shop').placeholder = body.example ?? '';
  list.show(body.shops, (shops) =>
    panel.querySelector('tbody').replaceChildren(
      ...shops.map((shop) => {
        const row = document.createElement('tr');
        cell(row, shop.shop);
        cell(row, shop.access);
        cell(row, '').append(whenNode(shop.expiresAt));
        cell(row, shop.scope ?? '');
        return row;
      }),
    ),
  );
}
