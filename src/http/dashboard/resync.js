// The dashboard's resync: read a platform's orders again over a window of days, offered for exactly what a resync
// reads (GET /status's reconciliation: each platform, or each store of a platform with several, a first run's demo
// shops among them), and its progress followed until it is done.
/* global $, api, num, platformLabel, localTime, backfillLane, refresh */
/* exported offerResync */

/** The reconciliation's entries by the name the resync form shows: their platform and shop. */
let resyncTargets = {};
const NOTHING_TO_RESYNC = 'No platform has API access configured, so there is nothing to resync from.';

/** One choice per store: with several stores of a platform, each is named "platform:shop". */
function offerResync(body) {
  const platforms = Object.keys(body.reconciliation);
  resyncTargets = body.reconciliation;
  const select = $('#resync-platform');
  if (select.options.length !== platforms.length)
    select.replaceChildren(...platforms.map((platform) => new Option(platformLabel(platform), platform)));
  $('#resync-form button').disabled = platforms.length === 0;
  const progress = $('#resync-progress');
  if (platforms.length === 0) progress.textContent = NOTHING_TO_RESYNC;
  else if (progress.textContent === NOTHING_TO_RESYNC) progress.textContent = '';
}

async function startResync(event) {
  event.preventDefault();
  const target = resyncTargets[$('#resync-platform').value] ?? {};
  const request = { platform: target.platform ?? $('#resync-platform').value, since: $('#resync-since').value };
  if (target.shop) request.shop = target.shop;
  if ($('#resync-until').value) request.until = $('#resync-until').value;
  const { status, body } = await api('/resync', { method: 'POST', body: JSON.stringify(request) });
  if (status !== 202) {
    $('#resync-progress').textContent = `Not started: ${body.error}`;
    return;
  }
  watchResync(body.job.id);
}

async function watchResync(id) {
  const { body } = await api(`/resync/${id}`);
  const { job } = body;
  const { fetched, changed, unchanged, failed, errors, expected } = job.progress;
  const state = job.status === 'running' ? 'Running' : job.status === 'done' ? 'Done' : 'Failed';
  // The fetched orders then wait in the backfill lane: its pace says when they are done.
  const finish = backfillLane?.estimatedFinishAt
    ? `; its orders done at this pace by ${localTime(backfillLane.estimatedFinishAt)} (${num(backfillLane.waiting)} waiting)`
    : '';
  const of = expected !== undefined ? ` of ${num(expected)}` : '';
  $('#resync-progress').textContent =
    `${state}: fetched ${num(fetched)}${of}, changed ${num(changed)}, unchanged ${num(unchanged)}, failed ${num(failed)}${finish}${errors.length ? `. ${errors[0]}` : ''}`;
  if (job.status === 'running') setTimeout(() => watchResync(id), 500);
  else refresh();
}

$('#resync-form').addEventListener('submit', startResync);
