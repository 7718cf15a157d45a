// The customer's points in the store: the launcher (blocks/points-launcher.liquid) and "Earn N points"
// (blocks/earn-points.liquid). One classic script, no dependencies, loaded with defer by each block that needs
// it (so it runs once, after the page is parsed). It asks only the app proxy, <proxy>/points, with the
// store's own cookies and no query parameter: Shopify adds and signs who the customer is, and the bridge
// refuses any parameter Shopify did not add. The one exception is a redemption, POST <proxy>/points/redeem
// ?reward=<id> with no body: Shopify signs the reward's id with the rest. Answer data reaches the page as text
// only (textContent).
// A page that reaches the bridge another way (BigCommerce's widget, adapters/bigcommerce/storefront-widget.ts)
// sets window.loyaltyBridgeTransport = { ask(fresh), redeem(id) } before this runs, and the proxy is not asked:
// ask(fresh) resolves to the points answer (rejects when there is none; fresh: the customer asked anew), and
// redeem(id) to the redemption's answer, as the proxy's JSON; its optional proveContact() has the store send the
// customer the link that proves their address, and resolves to words saying so. This file still keeps one answer
// per page.
(function () {
  'use strict';
  // === true: an element a page's content names loyaltyBridgePoints (id="loyaltyBridgePoints", which a post or a
  // product's text may carry) is no earlier copy of this script.
  if (window.loyaltyBridgePoints === true) return;
  window.loyaltyBridgePoints = true;

  // The page's own way to the bridge, if it gave one (see above); otherwise the app proxy.
  const transport = window.loyaltyBridgeTransport;

  // One answer per proxy path for the page: the earn block asks on load, the launcher when first opened.
  const answers = new Map();
  function ask(proxy, fresh) {
    if (fresh || !answers.has(proxy)) {
      const asked = transport
        ? Promise.resolve().then(() => transport.ask(Boolean(fresh)))
        : fetch(`${proxy.replace(/\/+$/, '')}/points`, {
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

  /** Spends points on a reward: the answer's JSON (its `error` in the customer's words), or a throw. */
  function redeem(proxy, id) {
    if (transport) return Promise.resolve().then(() => transport.redeem(id));
    const path = `${proxy.replace(/\/+$/, '')}/points/redeem?reward=${encodeURIComponent(id)}`;
    return fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    }).then((response) => response.json());
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

  function button(className, text, onClick) {
    const node = element('button', className, text);
    node.type = 'button';
    node.addEventListener('click', onClick);
    return node;
  }

  /** A code to copy: the text itself (selectable), and a Copy button that says when it copied. */
  function codeLine(words, code, large) {
    const line = element('div', 'loyalty-code');
    line.append(element('span', large ? 'loyalty-code__text loyalty-code__text--large' : 'loyalty-code__text', code));
    const copy = button('loyalty-panel__action', words.copy, () => {
      navigator.clipboard.writeText(code).then(
        () => {
          copy.textContent = words.copied;
        },
        () => undefined,
      );
    });
    line.append(copy);
    return line;
  }

  /**
   * What a reward or code gives in the words of `forms`, one a kind (the bridge's reward-benefit.ts), `other` for a
   * kind this script does not know yet ('' where none). A bridge from before benefits had kinds names amountOff alone.
   */
  function benefitWords(forms, each, values) {
    const benefit = each.benefit || (each.amountOff ? { kind: 'amount_off', amount: each.amountOff } : {});
    const form = Object.prototype.hasOwnProperty.call(forms, benefit.kind) ? forms[benefit.kind] : forms.other;
    const percent = typeof benefit.percent === 'number' ? number(benefit.percent) : undefined;
    return form ? fill(form, { ...values, amount: benefit.amount, percent }) : '';
  }

  /** What a code gives, in the customer's words: "5.00 off your order", "Free shipping on your order". */
  function worth(words, each) {
    const forms = { amount_off: words.amountOff, percent_off: words.percentOff, free_shipping: words.freeShipping };
    return benefitWords(forms, each);
  }

  /** The code just made: large, with what it is worth and until when. */
  function madePart(words, made) {
    const part = element('section', 'loyalty-panel__part loyalty-made');
    part.append(element('h3', 'loyalty-panel__heading', words.yourCode));
    part.append(codeLine(words, made.code, true));
    const gives = worth(words, made);
    if (gives) part.append(element('p', 'loyalty-panel__note', gives));
    part.append(element('p', 'loyalty-panel__note', fill(words.useBefore, { date: day(made.expiresAt) })));
    return part;
  }

  /** The customer's unused codes, but the one shown large above. */
  function codesPart(words, codes, shown) {
    const part = element('section', 'loyalty-panel__part');
    const open = (Array.isArray(codes) ? codes : []).filter((each) => each.code !== shown);
    if (open.length === 0) return part;
    part.append(element('h3', 'loyalty-panel__heading', words.codes));
    const list = element('ul', 'loyalty-panel__list');
    for (const each of open) {
      const item = element('li', 'loyalty-panel__line loyalty-panel__line--stack');
      item.append(codeLine(words, each.code, false));
      const when = [worth(words, each), fill(words.useBefore, { date: day(each.expiresAt) })]
        .filter(Boolean)
        .join(' · ');
      item.append(element('span', 'loyalty-panel__when', when));
      list.append(item);
    }
    part.append(list);
    return part;
  }

  /**
   * The shop's rewards. `available` is the balance (a number) where the customer may redeem; `act(reward, line)`
   * asks to confirm. Without a balance (a guest, or points that cannot be shown) no reward has a button.
   */
  function rewardsPart(words, rewards, available, act) {
    const part = element('section', 'loyalty-panel__part');
    if (!Array.isArray(rewards) || rewards.length === 0) return part;
    part.append(element('h3', 'loyalty-panel__heading', words.rewards));
    const list = element('ul', 'loyalty-panel__list');
    for (const reward of rewards) {
      const item = element('li', 'loyalty-panel__line loyalty-panel__line--stack');
      item.append(element('span', 'loyalty-panel__words', reward.words));
      if (typeof available === 'number') {
        const redeemButton = button('loyalty-panel__action', words.redeem, () => act(reward, item));
        const short = reward.points - available;
        if (short > 0) {
          redeemButton.disabled = true;
          item.append(element('span', 'loyalty-panel__when', fill(words.needMore, { points: number(short) })));
        }
        item.append(redeemButton);
      }
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
    // The code this panel just made, shown large until the panel is loaded anew by a page.
    let made;

    const tryAgain = () => {
      const button = element('button', 'loyalty-panel__retry', words.tryAgain);
      button.type = 'button';
      button.addEventListener('click', () => load(true));
      return button;
    };
    const signInLink = (text) => {
      const link = element('a', 'loyalty-panel__sign-in', text);
      link.href = words.signInUrl;
      return link;
    };
    /** Asks "Spend N points for 10% off?" (each kind its own sentence) in the reward's line, then redeems. */
    function confirmIn(reward, item) {
      item.querySelector('.loyalty-confirm')?.remove();
      const ask = element('div', 'loyalty-confirm');
      const forms = {
        amount_off: words.confirmAmountOff,
        percent_off: words.confirmPercentOff,
        free_shipping: words.confirmFreeShipping,
        other: words.confirmReward,
      };
      const said = element('p', 'loyalty-panel__note', benefitWords(forms, reward, { points: number(reward.points) }));
      const yes = button('loyalty-panel__action', words.confirmYes, () => {
        yes.disabled = true;
        no.disabled = true;
        said.textContent = words.redeeming;
        redeem(proxy, reward.id)
          .then((answer) => {
            if (answer && answer.redeemed === true) {
              made = answer;
              load(true);
            } else if (answer && answer.customer === 'guest') {
              ask.replaceChildren(signInLink(words.signInToRedeem));
            } else {
              // The bridge's own words, already said for the customer.
              ask.replaceChildren(
                element('p', 'loyalty-panel__error', answer && answer.error ? answer.error : words.failed),
              );
            }
          })
          .catch(() => ask.replaceChildren(element('p', 'loyalty-panel__error', words.failed)));
      });
      const no = button('loyalty-panel__action loyalty-panel__action--quiet', words.cancel, () => ask.remove());
      ask.append(said, yes, no);
      item.append(ask);
      yes.focus();
    }
    function show(answer) {
      body.replaceChildren();
      if (answer.customer === 'guest') {
        const invite = element('section', 'loyalty-panel__part');
        invite.append(element('p', 'loyalty-panel__note', words.guest));
        invite.append(signInLink(words.signIn));
        body.append(invite);
        const offered = rewardsPart(words, answer.rewards);
        if (offered.childElementCount > 0) offered.append(signInLink(words.signInToRedeem));
        body.append(offered);
      } else if (answer.unavailable) {
        const said = element('section', 'loyalty-panel__part');
        const note = element('p', 'loyalty-panel__note', answer.unavailable);
        said.append(note);
        body.append(said);
        // Their address is to be proven first: the store sends the link (the transport's, where the page has one).
        if (answer.proveContact && transport && transport.proveContact) {
          const send = button('loyalty-panel__action', answer.proveContact.action, () => {
            send.disabled = true;
            transport.proveContact().then(
              (words) => {
                note.textContent = words;
                send.remove();
              },
              () => {
                send.disabled = false;
              },
            );
          });
          said.append(send);
        }
        // "Try again" once the bridge says a read may succeed; never for what waits on the store or the account.
        if (typeof answer.retryAfterSeconds === 'number')
          setTimeout(() => said.append(tryAgain()), Math.max(0, answer.retryAfterSeconds) * 1000);
        body.append(rewardsPart(words, answer.rewards));
      } else if (answer.balance) {
        if (made) body.append(madePart(words, made));
        body.append(
          balancePart(words, answer.balance),
          codesPart(words, answer.codes, made && made.code),
          rewardsPart(words, answer.rewards, answer.balance.available, confirmIn),
          historyPart(words, answer.history),
        );
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
