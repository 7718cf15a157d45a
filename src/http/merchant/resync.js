// Read orders again (Orders): a window of the shop's orders, with its progress until it ends.
import { $, call, formProblems, toast } from './page.js';
import { momentText } from './dates.js';

const dayOf = (date) => date.toISOString().slice(0, 10);
let followed = null;

$('#resync-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const since = $('#resync-form [name="since"]').value;
  const until = $('#resync-form [name="until"]').value;
  const request = { since, ...(until ? { until } : {}) };
  const { status, body } = await call('/resync', { method: 'POST', body: JSON.stringify(request) });
  formProblems($('#resync-form'), status === 202 ? [] : (body.errors ?? [body.error]));
  if (status !== 202) return toast('Not started: see why', true);
  toast('Reading your orders again');
  showResync(body.job);
  void followResync(body.job.id);
});

/** Asks for the job's progress each second until it ends, then shows the orders it brought. */
export async function followResync(id) {
  if (followed === id) return;
  followed = id;
  while (followed === id) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { status, body } = await call(`/resync/${encodeURIComponent(id)}`);
    if (status !== 200 || followed !== id) break;
    showResync(body.job);
    if (body.job.status !== 'running') {
      followed = null;
      toast(
        body.job.status === 'done' ? 'Your orders were read again' : 'Reading your orders stopped',
        body.job.status !== 'done',
      );
      // The orders it brought: Orders reads them again (orders.js listens).
      document.dispatchEvent(new CustomEvent('orders-read-again'));
    }
  }
}

export function showResync(job) {
  const since = $('#resync-form [name="since"]');
  // A week back, to begin with: the window a missed notification usually falls in.
  if (!since.value) since.value = dayOf(new Date(Date.now() - 7 * 86_400_000));
  const bar = $('#resync-progress');
  bar.hidden = job?.status !== 'running';
  const { fetched = 0, expected, changed = 0, unchanged = 0, failed = 0, errors = [] } = job?.progress ?? {};
  if (expected) {
    bar.setAttribute('max', String(expected));
    bar.setAttribute('value', String(fetched));
  } else bar.removeAttribute('value');
  $('#resync-status').textContent = !job
    ? ''
    : job.status === 'running'
      ? `Reading the orders since ${job.request.since?.slice(0, 10)}: ${fetched}${expected ? ` of ${expected}` : ''} read, ${changed} new or changed.`
      : job.status === 'done'
        ? `Last read ${momentText(job.finishedAt)}: ${fetched} order${fetched === 1 ? '' : 's'}, ${changed} new or changed (their points follow), ${unchanged} already known${failed ? `, ${failed} failed (${errors[0] ?? 'no reason given'})` : ''}.`
        : `Reading the orders stopped: ${errors[0] ?? 'no reason given'}.`;
  $('#resync-status').dataset.status = job?.status ?? 'none';
}
