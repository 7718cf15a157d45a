// The dashboard's dates: short ("Nov 25, 9:13 PM", the year only when it is not this one) and held on one line by
// non-breaking spaces, so a date never wraps in a narrow column or mid-sentence; the full date and time in its
// title. Loaded before app.js and the panels, which use these.
/* exported localTime, whenNode */

const SHORT = { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' };

/** An ISO time, short, in the reader's locale and time zone, on one line; '' for none. */
function localTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  const options = date.getFullYear() === new Date().getFullYear() ? SHORT : { ...SHORT, year: 'numeric' };
  return date.toLocaleString(undefined, options).replace(/\s/g, '\u00a0');
}

/** A <time> for a table cell or a card: the short date, the full one on hover; `none` when there is no time. */
function whenNode(iso, none = '') {
  if (!iso) return document.createTextNode(none);
  const time = document.createElement('time');
  time.className = 'when';
  time.dateTime = iso;
  time.title = new Date(iso).toLocaleString();
  time.textContent = localTime(iso);
  return time;
}
