// Orders: the shop's recent orders, a row each with its date, total and status in one short line (the row opens
// its detail, order-detail.js, with the reason and its fix), and what could not go on.
import { $, call, element, toast } from './page.js';
import { followResync, showResync } from './resync.js';
import { closeOrder, openOrder } from './order-detail.js';
import { money } from './figures.js';
import { dayText as dayOf } from './dates.js';
// Its forms of points given, taken back and looked up by hand.
import './by-hand.js';

/** A day as the reader's locale writes it ("27 Nov 2026", "Nov 27, 2026"). */
export const dayText = (at) => dayOf(at, '—');

/** The order's state and reason in words, with the fix (the API's words: the page shows no code). */
export const statusText = (order) => `${order.words.says}${order.words.fix ? ` Fix: ${order.words.fix}.` : ''}`;

export const letterTitle = (letter) =>
  letter.orderKey
    ? `Order ${letter.orderName ?? letter.orderKey.split(':').pop()}: ${letter.callWords ?? 'a call'}`
    : letter.callWords
      ? `A change: ${letter.callWords}`
      : 'A delivery';

/**
 * One order's row: its name opens its detail (the whole row does, by its click delegate), its status one short
 * line. Each cell carries its column's name, which a phone shows beside it where the rows stand one under another.
 */
export function orderRow(order, labels, held, index) {
  const name = order.orderName || order.orderId;
  const open = element('s-link', name, { id: `open-order-${index}`, accessibilitylabel: `Open order ${name}` });
  open.addEventListener('click', () => void openOrder(order.key));
  const row = element('s-table-row', undefined, { 'data-order': order.orderId, clickdelegate: `open-order-${index}` });
  const orderCell = element('s-table-cell', undefined, labels.Order);
  orderCell.append(open);
  const status = element('s-table-cell', order.line, { ...labels.Status, class: 'order-status' });
  // An order whose call the service refused reads as its plan: the badge says it is held, its letter below why.
  if (held) status.append(' ', element('s-badge', 'Held: see below', { tone: 'critical' }));
  row.append(
    orderCell,
    element('s-table-cell', dayText(order.firstSeenAt), { ...labels.Date, class: 'order-date' }),
    element('s-table-cell', order.email ?? order.mobile ?? '', labels.Customer),
    element('s-table-cell', money(order.total), { ...labels.Total, class: 'order-total' }),
    status,
    element('s-table-cell', order.points.text, labels.Points),
  );
  return row;
}

/** A letter of what could not go on, with its button to send it again. */
function letterBanner(letter) {
  const banner = element('s-banner', undefined, { tone: 'critical', heading: letterTitle(letter), class: 'item' });
  banner.append(element('s-paragraph', letter.reason));
  const retry = element('s-button', 'Send again', { slot: 'secondary-actions', 'data-letter': letter.id });
  retry.addEventListener('click', async () => {
    const { status, body } = await call(`/dead-letters/${encodeURIComponent(letter.id)}/retry`, { method: 'POST' });
    toast(status === 200 ? 'Sent again' : (body.errors?.[0] ?? body.error ?? 'Not sent again'), status !== 200);
    await loadOrders();
  });
  banner.append(retry);
  return banner;
}

/** Draws the view: merchant.js calls every view module's load. */
export const load = loadOrders;

async function loadOrders() {
  closeOrder();
  const [{ body: orders }, { body: letters }, { body: resyncs }] = await Promise.all([
    call('/orders?limit=20&page=1'),
    call('/dead-letters'),
    call('/resync'),
  ]);
  const latest = (resyncs.jobs ?? [])[0];
  showResync(latest);
  if (latest?.status === 'running') void followResync(latest.id);
  const held = letters.deadLetters ?? [];
  const heldOrders = new Set(held.map((letter) => letter.orderKey).filter(Boolean));
  // Each column's name, by the header's own words, as a cell's data-label.
  const labels = Object.fromEntries(
    [...($('#orders s-table-header-row')?.children ?? [])].map((header) => [
      header.textContent,
      { 'data-label': header.textContent },
    ]),
  );
  $('#orders s-table-body').replaceChildren(
    ...(orders.orders ?? []).map((order, index) => orderRow(order, labels, heldOrders.has(order.key), index)),
  );
  $('#no-dead-letters').hidden = held.length > 0;
  $('#dead-letters').replaceChildren(...held.map(letterBanner));
}

// A read of the orders again (resync.js) ended: the orders it brought.
document.addEventListener('orders-read-again', () => void loadOrders());
