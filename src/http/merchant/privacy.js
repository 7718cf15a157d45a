// Data requests: customers asking what the app holds of them; exported, then marked answered.
import { $, call, element, toast } from './page.js';
import { dayText } from './dates.js';

/** Draws the view: merchant.js calls every view module's load. */
export const load = loadDataRequests;

async function loadDataRequests() {
  const { body } = await call('/privacy/data-requests');
  const requests = body.dataRequests ?? [];
  $('#no-data-requests').hidden = requests.length > 0;
  $('#data-requests').replaceChildren(
    ...requests.map((request) => {
      const who = request.customer?.email ?? request.customer?.phone ?? 'a customer';
      const banner = element('s-banner', undefined, {
        tone: 'info',
        heading: `${who}, asked ${dayText(request.receivedAt)}`,
        class: 'item',
        'data-request': request.id,
      });
      const exportButton = element('s-button', 'Export their data', { slot: 'secondary-actions' });
      exportButton.addEventListener('click', () => void exportRequest(request));
      const answered = element('s-button', 'Mark answered', { slot: 'secondary-actions' });
      answered.addEventListener('click', async () => {
        const { status } = await call(`/privacy/data-requests/${encodeURIComponent(request.id)}`, { method: 'DELETE' });
        toast(status === 200 ? 'Marked answered' : 'Not marked answered', status !== 200);
        await loadDataRequests();
      });
      banner.append(exportButton, answered);
      return banner;
    }),
  );
}

async function exportRequest(request) {
  const { status, body } = await call(`/privacy/data-requests/${encodeURIComponent(request.id)}/export`);
  if (status !== 200) return toast('The export failed', true);
  const link = element('a', undefined, {
    href: URL.createObjectURL(new Blob([JSON.stringify(body, null, 2)], { type: 'application/json' })),
    download: `data-request-${request.requestId ?? request.id}.json`,
  });
  link.click();
  // Not at once: the browser may not have begun to read the file when click() returns.
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  toast('Exported: send the file to the customer');
}
