// The dashboard's shared helpers: the admin API with the token, table cells and cards, words and numbers as the
// reader reads them, and the colours that say what a state means. Loaded first of the dashboard's own scripts;
// the panels' scripts use these once the page runs.
/* global signOut */
/* exported $, TOKEN_KEY, token, api, cell, fillPairs, wordsNode, someOf, card, num, counted, budgetNode, spareWords, tone, TONES,
   platformLabel, loadPlatformLabels */
const TOKEN_KEY = 'loyalty-bridge-admin-token';
const $ = (selector) => document.querySelector(selector);

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

async function api(path, options = {}) {
  const response = await fetch(`/admin/api${path}`, {
    ...options,
    headers: {
      authorization: `Bearer ${token()}`,
      'content-type': 'application/json',
      ...(options.headers ?? {}),
    },
  });
  if (response.status === 401) {
    signOut('The admin token was refused.');
    throw new Error('unauthorised');
  }
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body };
}

/** A count with the reader's separators ("98,340", "98 340", "98.340"); anything else as it is. */
const NUMBERS = new Intl.NumberFormat();
const num = (value) => (typeof value === 'number' ? NUMBERS.format(value) : String(value ?? ''));
/** A count with its noun as English says it ("1 order", "2 orders"): the page's words are English. */
const PLURALS = new Intl.PluralRules('en');
const counted = (count, one, other = `${one}s`) => `${num(count)} ${PLURALS.select(count) === 'one' ? one : other}`;

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  row.append(td);
  return td;
}

/** A two-column table of names and values (a count, words or a node). */
function fillPairs(table, pairs) {
  const body = table.querySelector('tbody');
  body.replaceChildren();
  if (pairs.length === 0) pairs = [['nothing yet', '']];
  for (const [name, value] of pairs) {
    const row = document.createElement('tr');
    if (typeof name === 'string') cell(row, name);
    else cell(row, '').append(name);
    if (value instanceof Node) cell(row, '').append(value);
    else cell(row, num(value));
    body.append(row);
  }
}

/** An order's or a reason's words (src/core/order-words.ts): the sentence, its fix, and the setting's name small. */
function wordsNode(words) {
  const span = document.createElement('span');
  span.className = 'words';
  span.textContent = words.fix ? `${words.says} Fix: ${words.fix}.` : words.says;
  if (words.setting) {
    const setting = document.createElement('small');
    setting.className = 'muted setting';
    setting.textContent = ` ${words.setting}`;
    span.append(setting);
  }
  return span;
}

/** A list of names, the first few and how many more: a fact about 200 shops stays a line. */
function someOf(names, shown = 5) {
  return names.length > shown
    ? `${names.slice(0, shown).join(', ')} and ${num(names.length - shown)} more`
    : names.join(', ');
}

/** A card of facts, each a term over its value (text, or a node such as a date's). */
function card(title, rows, problem) {
  const article = document.createElement('article');
  article.className = problem ? 'card problem' : 'card';
  const heading = document.createElement('h3');
  heading.textContent = title;
  const list = document.createElement('dl');
  for (const [term, value] of rows) {
    const pair = document.createElement('div');
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.append(value);
    pair.append(dt, dd);
    list.append(pair);
  }
  article.append(heading, list);
  return article;
}

/**
 * A budget of calls in one short line with its bar: "2 of 489 calls this minute". Why it is fewer than the
 * service allows is said once, where the loyalty service is shown (spareWords), not beside every budget.
 */
function budgetNode(calls, limit, windowMs = 60_000) {
  const span = document.createElement('span');
  span.className = 'budget';
  const when = windowMs === 60_000 ? 'this minute' : `in the last ${num(windowMs / 1000)} seconds`;
  const bar = document.createElement('meter');
  Object.assign(bar, { min: 0, max: limit, value: Math.min(calls, limit), low: limit * 0.5, high: limit * 0.9 });
  bar.optimum = 0;
  span.append(`${num(calls)} of ${num(limit)} calls ${when} `, bar);
  return span;
}

/** Why the bridge sends fewer calls than the service allows, in a sentence; '' when it sends as many. */
function spareWords({ limit, effectiveLimit }) {
  if (!(effectiveLimit < limit)) return '';
  return `The bridge sends at most ${num(effectiveLimit)} of the ${num(limit)} calls a minute the service allows: the rest is kept spare so that late calls never exceed it.`;
}

/** What a colour means, the same in every chart and badge: earned green, no points grey, problems red. */
const TONES = {
  good: '#2e7d32',
  pending: '#8bc34a',
  waiting: '#5b7db1',
  none: '#9aa5b1',
  warn: '#d98c00',
  bad: '#c62828',
};
const tone = (name) => TONES[name] ?? TONES.waiting;

/** Each platform's name as a person reads it, from GET /admin/api/platforms; the code until it is known. */
const platformLabels = new Map();
let platformLabelsLoaded = null;
function loadPlatformLabels() {
  platformLabelsLoaded ??= api('/platforms').then(
    ({ body }) => {
      for (const each of body.platforms ?? []) platformLabels.set(each.name, each.names.platform);
    },
    (error) => {
      platformLabelsLoaded = null;
      throw error;
    },
  );
  return platformLabelsLoaded;
}
/** A platform, or a store named "platform:shop", with the platform in its own words. */
const platformLabel = (name) => {
  const [platform, ...shop] = String(name).split(':');
  const label = platformLabels.get(platform) ?? platform;
  return shop.length > 0 ? `${label}: ${shop.join(':')}` : label;
};

/** Each cell named by its column's heading, which a phone shows above it when a row becomes a card (style.css). */
function labelCells(table) {
  const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  for (const row of table.tBodies[0]?.rows ?? [])
    [...row.cells].forEach((td, i) => {
      if (heads[i] && td.colSpan === 1) td.dataset.label = heads[i];
    });
}
// Every table's rows as they are drawn, whichever panel draws them.
new MutationObserver((records) => {
  const tables = new Set(records.map((record) => record.target.closest?.('table')).filter(Boolean));
  for (const table of tables) labelCells(table);
}).observe(document.body, { childList: true, subtree: true });
