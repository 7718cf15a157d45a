// Try it (Set up): a test order, followed until its points are earned (or it is skipped, and why).
import { $, call, toast } from './page.js';
import { statusText } from './orders.js';

let testOrder = null;

$('#send-test-order').addEventListener('click', async () => {
  const { status, body } = await call('/test-orders', { method: 'POST' });
  if (status !== 202) return toast(body.errors?.[0] ?? body.error ?? 'The test order was not sent', true);
  testOrder = body.testOrder;
  toast('Test order sent');
  $('#cancel-test-order').hidden = true;
  await followTestOrder(testOrder, ['earned', 'approved']);
});

$('#cancel-test-order').addEventListener('click', async () => {
  if (!testOrder) return;
  const { status } = await call(`/test-orders/${encodeURIComponent(testOrder.orderId)}/cancel`, { method: 'POST' });
  if (status !== 202) return toast('The test order was not cancelled', true);
  $('#cancel-test-order').hidden = true;
  await followTestOrder(testOrder, ['cancelled']);
});

/**
 * The order's points as a number, and while they are pending, until when or what, in the state's own words:
 * "earned 100 points, pending until the order is fulfilled."
 */
function testOrderPoints(record) {
  const text = record?.points?.text;
  if (!text) return undefined;
  const until = /^Points earned, (pending .*)$/.exec(record.words?.says ?? '')?.[1];
  return until && text.endsWith(', pending') ? `${text.slice(0, -', pending'.length)}, ${until}` : `${text}.`;
}

/** Shows where the order's points are, each second, until they reach one of `until` or the order stops. */
async function followTestOrder(order, until) {
  const status = $('#test-order-status');
  for (let tries = 0; tries < 60; tries++) {
    const { status: found, body } = await call(`/orders/${encodeURIComponent(order.key)}`);
    const record = found === 200 ? body.order : null;
    const points = record?.upstream?.points ?? 'none';
    const skipped = record?.target?.state === 'skipped' ? record.target.reason : null;
    status.textContent = skipped
      ? `${order.orderName}: ${statusText(record)}`
      : `${order.orderName}: ${testOrderPoints(record) ?? `${record?.serviceWords?.points ?? 'not read yet'}.`}`;
    status.dataset.points = skipped ? 'skipped' : points;
    if (skipped || until.includes(points)) {
      $('#cancel-test-order').hidden = skipped !== null || points === 'cancelled';
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
