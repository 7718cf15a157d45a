// The dashboard's status: what needs attention at the top (problems, alarms, banners), the orders' totals by state,
// platform and reason, the loyalty service's budget and the work waiting, the demo's badge, and the platforms the
// resync form offers. All from GET /admin/api/status, every refresh.
/* global $, api, fillPairs, wordsNode, budgetsNode, localTime, platformLabel, showConnections, drawStateChart,
   offerResync */
/* exported loadStatus, backfillLane */

/** The backfill lane as the last status showed it: a resync's orders are done when it is. */
let backfillLane;

async function loadStatus() {
  const { body } = await api('/status');
  backfillLane = body.lanes?.backfill;
  fillTotals(body);
  fillWork(body);
  showBanners(body);
  showProblems(body.problems ?? []);
  showAlarms(body.connections ?? []);
  showConnections(body);
  offerStates(body);
  drawStateChart(body);
  offerResync(body);
}

/** The orders by state, by platform, skipped by reason, and what needs the operator's eye. */
function fillTotals(body) {
  fillPairs(
    $('#by-state'),
    Object.entries(body.orders.byState).map(([state, count]) => [body.stateWords?.[state] ?? state, count]),
  );
  fillPairs(
    $('#by-platform'),
    Object.entries(body.orders.byPlatform).map(([platform, count]) => [platformLabel(platform), count]),
  );
  // Each reason in words, with its fix (the API's reasonWords; the code where a bridge gives none).
  const reasons = (map) =>
    Object.entries(map).map(([reason, count]) => [
      body.reasonWords?.[reason] ? wordsNode(body.reasonWords[reason]) : reason,
      count,
    ]);
  fillPairs($('#skipped'), reasons(body.orders.skipped));
  // Orders listed for a reason, and every problem (dead letters, an account in trouble): none hides here.
  fillPairs($('#attention'), [
    ...reasons(body.orders.attention ?? {}),
    ...(body.problems ?? []).map((problem) => [problem.label, problem.count ?? 1]),
  ]);
}

/** The loyalty service's budget and the work waiting in each lane. */
function fillWork(body) {
  const rate = body.rateLimit;
  fillPairs($('#rate'), [
    ['calls to the service', budgetsNode(rate.startedInWindow, rate.effectiveLimit, rate.windowMs)],
    ['waiting in the limiter', rate.queued],
    ['orders with work', body.ledger.activeOrders],
    ['last success', localTime(body.upstream.lastSuccessAt) || 'none yet'],
  ]);
  // Per lane: live (webhooks, a person's action on one order) goes first; backfill (resyncs, reconciliation) keeps its share.
  const lane = (name, figures) =>
    figures
      ? [
          [`${name}: due now`, figures.due],
          [`${name}: calls in the last minute`, figures.callsLastMinute],
          [`${name}: oldest waiting since`, localTime(figures.oldestDueAt) || 'nothing waiting'],
          ...(figures.estimatedFinishAt
            ? [[`${name}: done at this pace by`, localTime(figures.estimatedFinishAt)]]
            : []),
        ]
      : [];
  fillPairs($('#lanes'), [...lane('live', body.lanes?.live), ...lane('backfill', body.lanes?.backfill)]);
}

/** The refused-credentials banner, the demo's badge and banner, and what a platform says needs the operator's eye. */
function showBanners(body) {
  if (body.upstream.credentialsRefused)
    $('#banner-text').textContent =
      'The loyalty service refuses our credentials: every call waits. Put LOYALTY_API_KEY and LOYALTY_BRAND_ID right (or the key right at the service), then try again.';
  $('#banner').hidden = !body.upstream.credentialsRefused;
  const mode = body.mode ?? {};
  $('#mode').textContent = mode.demo ? 'demo' : mode.sandbox ? 'sandbox' : '';
  $('#mode').hidden = !mode.demo && !mode.sandbox;
  $('#demo-banner').hidden = !mode.demo;
  $('#account-sandbox-choice').hidden = !mode.sandbox;
  // In a platform's own words (orders that arrived without what earns, say).
  const attention = (body.connections ?? []).flatMap((connection) => connection.notes?.attention ?? []);
  $('#protected-banner').textContent = attention.join(' ');
  $('#protected-banner').hidden = attention.length === 0;
}

/** The orders' filter offers each state in the same few words, once. */
function offerStates(body) {
  const states = $('#order-state');
  if (states.options.length === 1 && body.stateLabels)
    states.append(...Object.entries(body.stateLabels).map(([state, label]) => new Option(label, state)));
}

/**
 * What stops orders earning, at the top: each problem's cause, then its fix. The default account's refused
 * credentials are the banner above, with its "Try again now".
 */
function showProblems(problems) {
  const shown = problems.filter((problem) => !(problem.kind === 'key_refused' && problem.account === 'default'));
  $('#problems').replaceChildren(
    ...shown.map((problem) => {
      const li = document.createElement('li');
      li.dataset.kind = problem.kind;
      const fix = document.createElement('span');
      fix.className = 'fix';
      fix.textContent = problem.fix;
      li.append(`${problem.cause} `, fix);
      return li;
    }),
  );
  $('#problems').hidden = shown.length === 0;
}

/** What a platform says is wrong with how deliveries reach us (a webhook it disabled, a hook it deactivated), and how to put it right. */
function showAlarms(connections) {
  const items = [];
  for (const connection of connections) {
    for (const report of connection.subscriptions ?? []) {
      for (const problem of report.problems)
        items.push(`${report.platform} ${report.shop}: ${problem.detail}. ${problem.fix}.`);
      if (report.error) items.push(`${report.platform} ${report.shop}: could not check the webhooks: ${report.error}`);
    }
  }
  const list = $('#alarms');
  list.replaceChildren(
    ...items.map((text) => {
      const li = document.createElement('li');
      li.textContent = text;
      return li;
    }),
  );
  list.hidden = items.length === 0;
}
