// The dashboard's privacy: the data requests platforms sent (a customer asking for their data), and a customer's
// data exported or erased by e-mail or phone. The loyalty service keeps its own copy: erase them there too.
/* global $, api, cell, counted, whenNode, refresh */
/* exported loadPrivacy */

async function loadPrivacy() {
  const { body } = await api('/privacy');
  $('#data-requests-note').textContent = body.dataRequests.length
    ? `${counted(body.dataRequests.length, 'data request')} to answer: export the customer's data and send it to the merchant's customer.`
    : 'No data request waiting.';
  $('#data-requests tbody').replaceChildren(
    ...body.dataRequests.map((request) => {
      const row = document.createElement('tr');
      cell(row, '').append(whenNode(request.receivedAt));
      cell(row, `${request.platform} ${request.shop}`);
      cell(row, [request.customer?.email, request.customer?.phone].filter(Boolean).join(' · '));
      const actions = cell(row, '');
      const use = document.createElement('button');
      use.textContent = 'Export';
      use.className = 'secondary';
      use.addEventListener('click', () => {
        $('#privacy-email').value = request.customer?.email ?? '';
        $('#privacy-phone').value = request.customer?.phone ?? '';
        exportCustomer();
      });
      const done = document.createElement('button');
      done.textContent = 'Answered';
      done.addEventListener('click', async () => {
        await api(`/privacy/data-requests/${encodeURIComponent(request.id)}`, { method: 'DELETE' });
        await loadPrivacy();
      });
      actions.append(use, ' ', done);
      return row;
    }),
  );
}

function privacyQuery() {
  const query = {};
  if ($('#privacy-email').value.trim()) query.email = $('#privacy-email').value.trim();
  if ($('#privacy-phone').value.trim()) query.phone = $('#privacy-phone').value.trim();
  return query;
}

async function exportCustomer(event) {
  event?.preventDefault();
  const query = privacyQuery();
  if (!query.email && !query.phone)
    return void ($('#privacy-result').textContent = 'Give an e-mail or a phone number.');
  const { status, body } = await api(`/customers/export?${new URLSearchParams(query)}`);
  if (status !== 200) return void ($('#privacy-result').textContent = `Not exported: ${body.error}`);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([JSON.stringify(body, null, 2)], { type: 'application/json' }));
  link.download = 'customer-data.json';
  link.textContent = 'customer-data.json';
  $('#privacy-result').replaceChildren(
    `${counted(body.orders.length, 'order')}, ${counted(body.deadLetters.length, 'dead letter')} found. Download `,
    link,
  );
  link.click();
}

async function eraseCustomer() {
  const query = privacyQuery();
  if (!query.email && !query.phone)
    return void ($('#privacy-result').textContent = 'Give an e-mail or a phone number.');
  if (
    !confirm(
      `Erase every trace of ${query.email ?? query.phone} from this bridge? Their orders keep their points state, without their name, e-mail or phone. This cannot be undone.`,
    )
  )
    return;
  const { status, body } = await api('/customers/erase', { method: 'POST', body: JSON.stringify(query) });
  $('#privacy-result').textContent =
    status === 200
      ? `Erased from ${counted(body.erased.orders, 'order')}, ${counted(body.erased.deadLetters, 'dead letter')}, ${counted(body.erased.adjustments, 'change', 'changes')} of points by hand and ${counted(body.erased.records - body.erased.adjustments, 'other record')}. Erase them at the loyalty service too.`
      : `Not erased: ${body.error}`;
  await refresh();
}

$('#privacy-form').addEventListener('submit', exportCustomer);
$('#privacy-erase').addEventListener('click', eraseCustomer);
