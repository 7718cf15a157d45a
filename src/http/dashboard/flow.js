// The dashboard's charts: deliveries and calls per minute over the last hour, and the orders by points state,
// each coloured by what it means (charts.js draws them): earned green, no points grey, problems red.
/* global $, api, tone, drawBars, drawStackedBars */
/* exported loadActivity, drawStateChart */

/** A delivery's colour by its result: refused red, nothing for the bridge grey; received by its platform's hue. */
function deliveryColour(key) {
  const [platform = '', result = ''] = key.split(':');
  if (result.startsWith('rejected')) return tone('bad');
  if (result !== 'accepted') return tone('none');
  const hues = ['#5b7db1', '#2a9d8f', '#6d597a', '#264653'];
  const at = [...platform].reduce((sum, letter) => sum + letter.charCodeAt(0), 0) % hues.length;
  return hues[at];
}

/** A call's colour by its outcome: done green, nothing to do grey, waiting on the service amber, refused red. */
function callColour(outcome) {
  if (outcome === 'success') return tone('good');
  if (outcome === 'not_found') return tone('none');
  if (['rate_limited', 'unavailable', 'network'].includes(outcome)) return tone('warn');
  return tone('bad');
}

async function loadActivity() {
  const { body } = await api('/activity?minutes=60');
  // Each series by its words from the API (words.deliveries, words.calls), never by its code; its colour by the code.
  const chart = (field, colourOf) => {
    const named = (key) => body.words?.[field]?.[key] ?? key;
    const colours = {};
    const points = body.minutes.map((minute) => ({
      at: minute.at,
      values: Object.fromEntries(
        Object.entries(minute[field]).map(([key, value]) => {
          colours[named(key)] = colourOf(key);
          return [named(key), value];
        }),
      ),
    }));
    return { points, colours };
  };
  const deliveries = chart('deliveries', deliveryColour);
  drawStackedBars($('#chart-deliveries'), deliveries.points, deliveries.colours);
  const calls = chart('calls', callColour);
  drawStackedBars($('#chart-calls'), calls.points, calls.colours);
}

/** The orders by state, each bar in the API's words and tone (a held order apart, in red), never by its code. */
function drawStateChart(body) {
  drawBars(
    $('#chart-states'),
    (body.stateChart ?? []).map(({ label, count, tone: named }) => ({
      name: label,
      value: count,
      colour: tone(named),
    })),
  );
}
