// The dashboard's dead letters: what the bridge gave up on and needs a person, each retried or discarded with
// its button.
/* global $, api, cell, num, whenNode, refresh */
/* exported loadDeadLetters */

function deadLetterWhat(letter) {
  if (letter.kind !== 'call') return `${letter.platform} ${letter.topic} delivery`;
  const of = letter.orderName ? `order ${letter.orderName}` : (letter.orderKey ?? 'a change by hand');
  return `${letter.callWords ?? 'a call'} for ${of}`;
}

function deadLetterRow(letter) {
  const row = document.createElement('tr');
  cell(row, '').append(whenNode(letter.createdAt));
  cell(row, deadLetterWhat(letter));
  cell(row, letter.reason);
  const retry = document.createElement('button');
  retry.textContent = 'Retry';
  retry.addEventListener('click', async () => {
    retry.disabled = true;
    const { body: result } = await api(`/dead-letters/${letter.id}/retry`, { method: 'POST' });
    if (!result.retried) alert(`Still failing: ${result.reason}`);
    await refresh();
  });
  const discard = document.createElement('button');
  discard.textContent = 'Discard';
  discard.className = 'secondary';
  discard.addEventListener('click', async () => {
    if (!confirm('Discard this dead letter? Nothing more will be done about it.')) return;
    await api(`/dead-letters/${letter.id}`, { method: 'DELETE' });
    await refresh();
  });
  cell(row, '').append(retry, ' ', discard);
  return row;
}

async function loadDeadLetters() {
  const { body } = await api('/dead-letters');
  $('#dead-letter-note').textContent =
    body.deadLetters.length === 0 ? 'Nothing needs a person.' : `${num(body.deadLetters.length)} waiting.`;
  $('#dead-letter-list tbody').replaceChildren(...body.deadLetters.map(deadLetterRow));
}
