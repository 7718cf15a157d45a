// The dashboard's connections: a card per platform (is each store's delivery healthy: deliveries, signature
// failures, what the platform says of our subscriptions) and one for the loyalty service, with its budget and,
// once, why the bridge sends fewer calls than the service allows.
/* global $, card, num, someOf, whenNode, localTime, budgetsNode, spareWords */
/* exported showConnections */

/** What the platform says of our subscriptions: its problems, when they were last found right, or why not checked. */
function subscriptionsText(connection) {
  const problems = connection.subscriptions.flatMap((report) =>
    report.problems
      .map((problem) => `${problem.detail}. ${problem.fix}`)
      .concat(report.error ? [`could not check: ${report.error}`] : []),
  );
  if (!connection.api) return { problems, text: 'not checked (no store API access)' };
  // The demo's shops are read for resync, but no platform holds webhooks of theirs.
  if (connection.subscriptionsHeld === false)
    return { problems, text: 'nothing to check: no platform holds webhooks for these stores' };
  // With many stores, the first few problems and how many there are; each store's own is in the stores panel.
  const troubled = connection.subscriptions.filter((report) => report.problems.length > 0 || report.error).length;
  if (problems.length > 0)
    return {
      problems,
      text:
        troubled > 2
          ? `${num(troubled)} of ${num(connection.subscriptions.length)} stores: ${problems.slice(0, 2).join(' ')} (each store's under Stores)`
          : problems.join(' '),
    };
  const checked = connection.subscriptions
    .map((report) => report.checkedAt)
    .sort()
    .at(-1);
  if (!checked) return { problems, text: 'not checked yet' };
  // Topics the app's configuration declares that no delivery has confirmed yet (not counted as working).
  const unconfirmed = connection.subscriptions
    .filter((report) => report.unconfirmed?.length)
    .map((report) => `${report.shop}: ${report.unconfirmed.join(', ')}`);
  const waiting = unconfirmed.length
    ? `; ${connection.notes?.unconfirmed ?? 'not yet seen delivered'}: ${someOf(unconfirmed, 3).replaceAll(', ', '; ')}`
    : '';
  return { problems, text: `all right (checked ${localTime(checked)})${waiting}` };
}

function connectionCard(connection) {
  const { problems, text } = subscriptionsText(connection);
  const notServed = connection.notAllowedLastHour
    ? `${num(connection.notAllowedLastHour)} deliveries ignored, from ${someOf(connection.notAllowedShops)}: ${connection.notes.notServed}`
    : 'none';
  return card(
    connection.label,
    [
      ['Webhooks', connection.webhooks ? 'on' : 'off (no secret configured)'],
      ['Store API', connection.api ? 'on' : 'off'],
      ['Deliveries, last hour', num(connection.deliveriesLastHour)],
      ['Last delivery', whenNode(connection.lastDeliveryAt, 'none yet')],
      ['Signature failures, last hour', num(connection.signatureFailuresLastHour)],
      ...(connection.notes?.notServed ? [['Shops not served, last hour', notServed]] : []),
      ['Subscriptions', text],
    ],
    problems.length > 0 || connection.signatureFailuresLastHour > 0,
  );
}

/** The loyalty service: its credentials, its last call, its budget (and why it is below the limit), its dead letters. */
function serviceCard(body) {
  const { upstream, rateLimit } = body;
  // The budgets are drawn again with each listing of the accounts: why they are below the limit stays beside them.
  const calls = document.createElement('span');
  calls.append(budgetsNode(rateLimit.startedInWindow, rateLimit.effectiveLimit, rateLimit.windowMs));
  const spare = spareWords(rateLimit);
  if (spare) {
    const why = document.createElement('small');
    why.className = 'muted why';
    why.textContent = spare;
    calls.append(why);
  }
  return card(
    body.mode?.sandbox ? 'Loyalty service (sandbox)' : 'Loyalty service',
    [
      ['Credentials', upstream.credentialsRefused ? 'refused: calls paused' : 'accepted'],
      ['Last successful call', whenNode(upstream.lastSuccessAt, 'none yet')],
      ['Calls', calls],
      ['Dead letters', num(body.deadLetters)],
    ],
    upstream.credentialsRefused,
  );
}

function showConnections(body) {
  const cards = (body.connections ?? []).map(connectionCard);
  cards.push(serviceCard(body));
  $('#connections').replaceChildren(...cards);
}
