// The one way a date or time is written, on the merchant's page and the operator's dashboard alike (the dashboard
// is served this file too, dashboard.ts): Intl.DateTimeFormat in the reader's locale and time zone, short ("Nov 25,
// 9:13 PM", "25 Nov, 21:13"), the year only when it is not this one, on one line (non-breaking spaces), so a date
// never wraps in a narrow column. The dashboard's classic scripts read it as `loyaltyDates`.

const MOMENT = { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' };
const DAY = { month: 'short', day: 'numeric' };
const TIME = { hour: 'numeric', minute: '2-digit' };
const FULL = { dateStyle: 'full', timeStyle: 'long' };

function written(iso, options, none) {
  if (!iso) return none;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return none;
  const year = date.getFullYear() === new Date().getFullYear() || !('month' in options) ? {} : { year: 'numeric' };
  return new Intl.DateTimeFormat(undefined, { ...options, ...year }).format(date).replace(/\s/g, '\u00a0');
}

/** A moment: its day and time. */
export const momentText = (iso, none = '') => written(iso, MOMENT, none);
/** A day alone. */
export const dayText = (iso, none = '') => written(iso, DAY, none);
/** A time of today alone (a code that lasts minutes, a chart's minute). */
export const timeText = (iso, none = '') => written(iso, TIME, none);
/** In full, for a title on hover. */
export const fullText = (iso, none = '') => written(iso, FULL, none);

globalThis.loyaltyDates = { momentText, dayText, timeText, fullText };
