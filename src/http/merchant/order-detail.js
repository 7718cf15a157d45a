// An order's detail (Orders): what the table's one line stands for. Its date and total, the reason in a sentence
// and its fix, its points, what the loyalty service holds of it, and each call made, with how it went.
import { $, call, element, toast } from './page.js';
import { money } from './figures.js';
import { momentText } from './dates.js';

/** A moment as the reader's locale writes it, day and time. */

/** The banner's tone: a held call is trouble, an order that earns nothing is news to act on, the rest is as planned. */
function whyTone(order) {
  if (order.work.held.length > 0) return 'critical';
  if (order.words.fix) return 'warning';
  return 'info';
}

/** The reason in a sentence and, where something can be done, the fix. */
function showWhy(order) {
  const why = $('#order-why');
  why.setAttribute('tone', whyTone(order));
  why.setAttribute('heading', order.label);
  $('#order-says').textContent = order.words.says;
  $('#order-fix').textContent = order.words.fix ? `Fix: ${order.words.fix}.` : '';
  $('#order-fix').hidden = !order.words.fix;
}

/** Each call made for the order, newest last, as the ledger keeps them. */
function showCalls(calls) {
  $('#no-order-calls').hidden = calls.length > 0;
  $('#order-calls').replaceChildren(
    ...calls.map((made) => {
      const tries = made.attempts > 1 ? `, after ${made.attempts} tries` : '';
      const message = made.message ? ` (${made.message})` : '';
      return element('li', `${momentText(made.at)}: ${made.words.call}, ${made.words.outcome}${tries}${message}`);
    }),
  );
}

/** A code's amount as the order's money is written ("5.00" whether the store sent 5 or 5.0000). */
function codeOff(amount, total) {
  if (total?.currency) return money({ amount: String(amount), currency: total.currency });
  const figure = Number(amount);
  return Number.isFinite(figure) ? figure.toLocaleString(undefined, { minimumFractionDigits: 2 }) : String(amount);
}

/** " ($5.00 off)"; nothing for a code that took no money off (free shipping, on a store that lists it as 0). */
function offWords(amount, total) {
  return Number(amount) > 0 ? ` (${codeOff(amount, total)} off)` : '';
}

function showDetail(order) {
  const name = order.orderName || order.orderId;
  $('#order-detail-section').setAttribute('heading', `Order ${name}`);
  const who = order.customer.email ?? order.customer.mobile ?? order.customer.name;
  $('#order-when').textContent =
    `Received ${momentText(order.firstSeenAt)} · ${money(order.total?.currency ? order.total : null)}${who ? ` · ${who}` : ''}`;
  $('#order-store-said').textContent = order.factWords.length
    ? `Your store said it was ${order.factWords.join(', ')}.`
    : 'Your store has said nothing of it yet.';
  // The discount codes it was paid with, as the store names them: a reward's code among them is where its points went.
  const codes = order.discountCodes ?? [];
  $('#order-codes').textContent = codes.length
    ? `Paid with ${codes.map(({ code, amount }) => `the code ${code}${offWords(amount, order.total)}`).join(' and ')}.`
    : '';
  $('#order-codes').hidden = codes.length === 0;
  showWhy(order);
  $('#order-points').textContent = `Points: ${order.points.text}`;
  const service = order.serviceWords;
  $('#order-service').textContent =
    `At the loyalty service: ${service.points}; ${service.conversion}; ${service.redemption}.`;
  showCalls(order.calls);
}

/** Opens the order's detail in place of the list; the list comes back with the button or the nav. */
export async function openOrder(key) {
  const { status, body } = await call(`/orders/${encodeURIComponent(key)}`);
  if (status !== 200) return toast('The order could not be opened; try again.', true);
  showDetail(body.order);
  $('#order-list').hidden = true;
  $('#order-detail').hidden = false;
  $('#order-detail').dataset.order = body.order.orderId;
  window.scrollTo?.(0, 0);
}

export function closeOrder() {
  $('#order-detail').hidden = true;
  $('#order-list').hidden = false;
}

$('#back-to-orders').addEventListener('click', () => {
  closeOrder();
  // The row the merchant came from, back in view.
  const from = $('#order-detail').dataset.order;
  document.querySelector(`#orders s-table-row[data-order="${CSS.escape(from ?? '')}"]`)?.scrollIntoView();
});
