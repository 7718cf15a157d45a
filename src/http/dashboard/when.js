// The dashboard's dates: short ("Nov 25, 9:13 PM", the year only when it is not this one) and held on one line by
// non-breaking spaces, so a date never wraps in a narrow column or mid-sentence; the full date and time in its
// title. Loaded before app.js and the panels, which use these.
/* exported localTime, whenNode */

/* global loyaltyDates */

/** An ISO time, short, in the reader's locale and time zone, on one line; '' for none (dates.js, as the merchant's). */
const localTime = (iso) => loyaltyDates.momentText(iso);

/** A <time> for a table cell or a card: the short date, the full one on hover; `none` when there is no time. */
function whenNode(iso, none = '') {
  if (!iso) return document.createTextNode(none);
  const time = document.createElement('time');
  time.className = 'when';
  time.dateTime = iso;
  time.title = loyaltyDates.fullText(iso);
  time.textContent = localTime(iso);
  return time;
}
