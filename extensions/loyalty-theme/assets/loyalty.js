// The customer's points in the store: the launcher (blocks/points-launcher.liquid) and "Earn N points"
// (blocks/earn-points.liquid). One classic script, no dependencies, loaded with defer by each block that needs
// it (so it runs once, after the page is parsed). It asks only the app proxy, <proxy>/points, with the
// store's own cookies and no query parameter: Shopify adds and signs who the customer is, and the bridge
// refuses any parameter Shopify did not add. Answer data reaches the page as text only (textContent).
(function () {
  'use strict';
  if (window.loyaltyBridgePoints) return;
  window.loyaltyBridgePoints = true;

  // One answer per proxy path for the page: the earn block asks on load, the launcher when first opened.
  const answers = new Map();
  function ask(proxy, fresh) {
    if (fresh || !answers.has(proxy)) {
      const asked = fetch(`${proxy.replace(/\/+$/, '')}/points`, {
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      }).then((response) => {
        if (!response.ok) throw new Error(`the app proxy answered ${response.status}`);
        return response.json();
      });
      // A failed ask is not kept: "Try again" asks anew.
      asked.catch(() => {
        if (answers.get(proxy) === asked) answers.delete(proxy);
      });
      answers.set(proxy, asked);
    }
    return answers.get(proxy);
  }

  // The store's language, where the browser knows it.
  const locale = (() => {
    try {
      return new Intl.NumberFormat(document.documentElement.lang || undefined).resolvedOptions().locale;
    } catch {
      return undefined;
    }
  })();
  const number = (value) => new Intl.NumberFormat(locale).format(value);
  const signed = (value) => new Intl.NumberFormat(locale, { signDisplay: 'exceptZero' }).format(value);
  const day = (iso) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(new Date(iso));
  const moment = (iso) =>
    new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  /** The locale's words with {name} filled in. */
  const fill = (words, values) => String(words).replace(/\{(\w+)\}/g, (whole, name) => values[name] ?? whole);

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  /** Decimal text of the shop's currency ("49.5") in its subunits (4950), as Liquid gives prices. */
  function subunits(decimal) {
    const match = /^(\d+)(?:\.(\d+))?$/.exec(String(decimal));
    return match ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0').slice(0, 2)) : NaN;
  }
  /** The points an order of this total earns: the way whose totals hold it; 0 where none is known. */
  function pointsFor(ways, total) {
    let points = 0;
    for (const way of Array.isArray(ways) ? ways : []) {
      const below = way.below === undefined ? Infinity : subunits(way.below);
      if (subunits(way.from) <= total && total < below) points = way.points;
    }
    return points;
  }

  function waysList(words, ways) {
    const part = element('section', 'loyalty-panel__part');
    if (!Array.isArray(ways) || ways.length === 0) return part;
    part.append(element('h3', 'loyalty-panel__heading', words.ways));
    const list = element('ul', 'loyalty-panel__list');
    for (const way of ways) {
      const item = element('li', 'loyalty-panel__line');
      item.append(element('span', 'loyalty-panel__words', way.words));
      item.append(element('span', 'loyalty-panel__points', fill(words.points, { points: number(way.points) })));
      list.append(item);
    }
    part.append(list);
    return part;
  }

  function balancePart(words, balance) {
    const part = element('section', 'loyalty-panel__part loyalty-balance');
    const figure = element('p', 'loyalty-balance__available');
    figure.append(element('strong', 'loyalty-balance__number', number(balance.available)));
    figure.append(' ', element('span', 'loyalty-balance__label', words.available));
    part.append(figure);
    if (balance.pending > 0) {
      const pending = balance.pendingUntil
        ? fill(words.pendingUntil, { points: number(balance.pending), date: day(balance.pendingUntil) })
        : fill(words.pending, { points: number(balance.pending) });
      part.append(element('p', 'loyalty-balance__pending', pending));
    }
    if (balance.stale && balance.asOf)
      part.append(element('p', 'loyalty-panel__note', fill(words.asOf, { time: moment(balance.asOf) })));
    if (balance.missingElsewhere) part.append(element('p', 'loyalty-panel__note', words.missingElsewhere));
    return part;
  }

  function historyPart(words, history) {
    const part = element('section', 'loyalty-panel__part');
    part.append(element('h3', 'loyalty-panel__heading', words.history));
    if (!Array.isArray(history) || history.length === 0) {
      part.append(element('p', 'loyalty-panel__note', words.noHistory));
      return part;
    }
    const list = element('ul', 'loyalty-panel__list');
    for (const line of history) {
      const item = element('li', 'loyalty-panel__line');
      const said = element('span', 'loyalty-panel__words', line.words);
      if (line.at) said.append(element('span', 'loyalty-panel__when', day(line.at)));
      item.append(said, element('span', 'loyalty-panel__points', signed(line.points)));
      list.append(item);
    }
    part.append(list);
    return part;
  }

  function launcher(root) {
    const words = JSON.parse(root.querySelector('[data-loyalty-words]').textContent);
    const open = root.querySelector('[data-loyalty-open]');
    const panel = root.querySelector('[role="dialog"]');
    const body = root.querySelector('[data-loyalty-body]');
    const proxy = root.dataset.proxy || '/apps/loyalty';
    let asked = false;

    const tryAgain = () => {
      const button = element('button', 'loyalty-panel__retry', words.tryAgain);
      button.type = 'button';
      button.addEventListener('click', () => load(true));
      return button;
    };
    function show(answer) {
      body.replaceChildren();
      if (answer.customer === 'guest') {
        const invite = element('section', 'loyalty-panel__part');
        invite.append(element('p', 'loyalty-panel__note', words.guest));
        const link = element('a', 'loyalty-panel__sign-in', words.signIn);
        link.href = words.signInUrl;
        invite.append(link);
        body.append(invite);
      } else if (answer.unavailable) {
        const said = element('section', 'loyalty-panel__part');
        said.append(element('p', 'loyalty-panel__note', answer.unavailable));
        body.append(said);
        // "Try again" once the bridge says a read may succeed; never for what waits on the store or the account.
        if (typeof answer.retryAfterSeconds === 'number')
          setTimeout(() => said.append(tryAgain()), Math.max(0, answer.retryAfterSeconds) * 1000);
      } else if (answer.balance) {
        body.append(balancePart(words, answer.balance), historyPart(words, answer.history));
      }
      body.append(waysList(words, answer.waysToEarn));
    }
    function load(fresh) {
      body.replaceChildren(element('p', 'loyalty-panel__note', words.loading));
      body.setAttribute('aria-busy', 'true');
      ask(proxy, fresh)
        .then(show, () => body.replaceChildren(element('p', 'loyalty-panel__note', words.failed), tryAgain()))
        .finally(() => body.removeAttribute('aria-busy'));
    }
    function openPanel() {
      panel.hidden = false;
      open.setAttribute('aria-expanded', 'true');
      panel.focus();
      if (!asked) {
        asked = true;
        load(false);
      }
    }
    function closePanel() {
      panel.hidden = true;
      open.setAttribute('aria-expanded', 'false');
      open.focus();
    }
    open.addEventListener('click', () => (panel.hidden ? openPanel() : closePanel()));
    root.querySelector('[data-loyalty-close]').addEventListener('click', closePanel);
    // Escape closes the panel wherever focus is on the page.
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !panel.hidden) {
        event.stopPropagation();
        closePanel();
      }
    });
  }

  function earn(node) {
    const total = Number(node.dataset.total);
    if (!node.dataset.total || !Number.isFinite(total)) return;
    ask(node.dataset.proxy || '/apps/loyalty').then(
      (answer) => {
        const points = pointsFor(answer.waysToEarn, total);
        if (points <= 0) return;
        node.textContent = fill(node.dataset.words, { points: number(points) });
        node.hidden = false;
      },
      // Nothing to say: the page reads as it would without the block.
      () => undefined,
    );
  }

  document.querySelectorAll('[data-loyalty-launcher]').forEach(launcher);
  document.querySelectorAll('[data-loyalty-earn]').forEach(earn);
})();
