// The storefront (Set up): off until the merchant turns it on; turning it on may first ask the admin to grant
// what it needs. Where the store needs the bridge's plugin, its download and a one-time connection code.
import { $, call, toast } from './page.js';
import { loadRewards } from './rewards.js';
import { putAskingScopes } from './scopes.js';
import { momentText, timeText } from './dates.js';

export async function loadStorefront() {
  const { status, body } = await call('/storefront');
  $('#storefront').hidden = status !== 200 || !body.offered;
  $('#storefront-switch').checked = body.on === true;
  showWidget(body.widget);
  showPlugin(body.plugin);
  await loadRewards();
}

/** Where the merchant pastes the plugin's code, in their platform's words (the storefront's answer says). */
let pasteWhere = '';

/** Where the store needs our plugin: its download, and the button that makes a one-time connection code. */
function showPlugin(plugin) {
  $('#plugin-connect').hidden = !plugin;
  if (!plugin) return;
  const link = $('#plugin-download');
  link.hidden = !plugin.download;
  $('#plugin-how').textContent = plugin.download?.howTo ?? '';
  pasteWhere = plugin.download?.pasteWhere ?? 'where the plugin asks for it';
  if (plugin.download) {
    link.href = plugin.download.path;
    link.textContent = `Download the plugin (version ${plugin.download.version})`;
  }
}

$('#plugin-code-button').addEventListener('click', async () => {
  const { status, body } = await call('/storefront/plugin-code', { method: 'POST' });
  const field = $('#plugin-code');
  const note = $('#plugin-code-note');
  if (status !== 200) {
    note.textContent = body?.errors?.join(' ') ?? 'The code could not be made. Try again in a moment.';
    note.hidden = false;
    return;
  }
  field.value = body.code;
  field.hidden = false;
  const until = timeText(body.expiresAt);
  note.textContent = `Paste it ${pasteWhere} before ${until}; it works once. A new code replaces this one.`;
  note.hidden = false;
});

/** Where the bridge puts the launcher on the store: whether it is there, put back, or why not yet. */
function showWidget(widget) {
  const banner = $('#storefront-widget');
  const problem = widget && !widget.onStore ? widget.problem : undefined;
  const putBack = widget?.onStore && widget.putBackAt ? momentText(widget.putBackAt) : undefined;
  banner.setAttribute('tone', problem ? 'warning' : 'info');
  banner.textContent = problem
    ? problem
    : putBack
      ? `Someone removed the points launcher from your store's scripts; the bridge put it back on ${putBack}. To take it off your store, turn this switch off.`
      : widget?.onStore
        ? "The points launcher is on your store's pages: the bridge added it to your store's scripts, and takes it off when you turn this off."
        : '';
  banner.hidden = banner.textContent === '';
}

function storefrontProblem(lines) {
  const banner = $('#storefront-problem');
  banner.textContent = lines.filter(Boolean).join(' ');
  banner.hidden = banner.textContent === '';
}

async function turnStorefront(on) {
  const { status, body } = await putAskingScopes('/storefront', { on });
  storefrontProblem(
    status === 200 ? [] : [...(body?.errors ?? [body?.error ?? 'The switch could not be saved.']), body?.fix],
  );
  if (status === 200) {
    $('#storefront-switch').checked = body.on;
    showWidget(body.widget);
    return toast(on ? 'Customers now see their points in your store' : 'Customers no longer see their points');
  }
  // Any other answer (a refusal, a write that failed, a lost connection) may not say what is saved: read it again.
  const saved = await call('/storefront');
  $('#storefront-switch').checked = saved.status === 200 ? saved.body.on === true : !on;
}

$('#storefront-switch').addEventListener('change', (event) => void turnStorefront(event.target.checked));
