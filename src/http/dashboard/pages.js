// The dashboard's long lists a page at a time, with their counts ("1–25 of 200") and Previous/Next: the lists that
// grow with tenants (accounts, shops, stores, installs) are filtered and paged here, over the one answer the page
// already holds whole (its selects and counts need every row); orders, which grow without bound, are paged by the
// admin API and only drawn here. Loaded before app.js and the panels.
/* global num */
/* exported pager, pagedList */

/**
 * Previous/Next and the count, in `nav` (empty in the page): `move(step)` is called with -1 or 1. `show(from, to,
 * total, nothing, filtered)` sets them; `nothing` is what the count says when nothing is shown. A list that fits one
 * page unfiltered shows neither: a count of one row is clutter on a first run.
 */
function pager(nav, move) {
  nav.classList.add('pager');
  nav.setAttribute('aria-label', nav.getAttribute('aria-label') ?? 'pages');
  const count = document.createElement('span');
  count.className = 'count';
  count.setAttribute('role', 'status');
  const button = (text, step) => {
    const made = document.createElement('button');
    made.type = 'button';
    made.className = 'secondary';
    made.textContent = text;
    made.addEventListener('click', () => move(step));
    return made;
  };
  const previous = button('‹ Previous', -1);
  const next = button('Next ›', 1);
  nav.replaceChildren(count, previous, next);
  return {
    show(from, to, total, nothing = 'none yet', filtered = false) {
      count.textContent = total === 0 ? nothing : `${num(from)}–${num(to)} of ${num(total)}`;
      previous.disabled = from <= 1;
      next.disabled = to >= total;
      const onePage = from <= 1 && to >= total;
      // One page: no buttons to press.
      previous.hidden = next.hidden = onePage;
      nav.hidden = onePage && !filtered;
    },
  };
}

/**
 * A list filtered by the words typed in `search` (matched against `text(item)`, any case) and shown `size` at a
 * time in `nav`; `show(items, draw)` draws the page the operator is on with `draw(itemsOfThePage)`, kept across
 * the dashboard's refreshes. The search box shows once there is more than a page to look through.
 */
function pagedList({ search, nav, size = 25, text }) {
  let page = 0;
  let items = [];
  let draw = () => {};
  const controls = pager(nav, (step) => {
    page += step;
    render();
  });
  function render() {
    const words = search.value.trim().toLowerCase();
    const shown = words ? items.filter((item) => text(item).toLowerCase().includes(words)) : items;
    const pages = Math.max(1, Math.ceil(shown.length / size));
    page = Math.max(0, Math.min(page, pages - 1));
    const from = page * size;
    const slice = shown.slice(from, from + size);
    draw(slice);
    controls.show(from + 1, from + slice.length, shown.length, `none of ${items.length} match`, Boolean(words));
    search.hidden = items.length <= size && !words;
  }
  search.addEventListener('input', () => {
    page = 0;
    render();
  });
  // Enter in the box searches; it sends nothing anywhere.
  search.form?.addEventListener('submit', (event) => event.preventDefault());
  return {
    show(list, drawPage) {
      items = list;
      draw = drawPage;
      render();
    },
  };
}
