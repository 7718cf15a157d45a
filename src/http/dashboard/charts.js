// Small charts drawn as inline SVG: stacked bars per minute, and horizontal
// bars for a few totals. No library and no build step: a few dozen bars do
// not need one, and the page's content security policy allows nothing inline.
const SVG = 'http://www.w3.org/2000/svg';

function svgElement(name, attributes = {}) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

/* global num, loyaltyDates */

/**
 * Colours by series name: what the caller says the series means (flow.js: earned green, no points grey, problems
 * red), else one of a few hues that mean nothing in particular, the same name the same hue in every chart.
 */
const PALETTE = ['#5b7db1', '#2a9d8f', '#6d597a', '#264653', '#b5838d'];
const colours = new Map();
function colourOf(name, meant) {
  if (meant?.[name]) colours.set(name, meant[name]);
  if (!colours.has(name)) colours.set(name, PALETTE[colours.size % PALETTE.length]);
  return colours.get(name);
}

function legend(names) {
  const list = document.createElement('ul');
  list.className = 'legend';
  for (const name of names) {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = colourOf(name);
    item.append(swatch, name);
    list.append(item);
  }
  return list;
}

/**
 * points: [{ at, values: { series: count } }], oldest first; meant: { series: colour }. Draws one bar a
 * minute, stacked by series, with the highest minute's count on the axis.
 */
window.drawStackedBars = function drawStackedBars(container, points, meant = {}, { height = 120 } = {}) {
  const names = [...new Set(points.flatMap((point) => Object.keys(point.values)))].sort();
  for (const name of names) colourOf(name, meant);
  const totals = points.map((point) => Object.values(point.values).reduce((sum, value) => sum + value, 0));
  const max = Math.max(1, ...totals);
  const width = Math.max(300, points.length * 6);
  const bar = width / Math.max(1, points.length);
  const svg = svgElement('svg', {
    viewBox: `0 0 ${width} ${height + 16}`,
    role: 'img',
    'aria-label': `${num(totals.reduce((a, b) => a + b, 0))} in the last ${points.length} minutes; at most ${num(max)} in a minute`,
  });
  svg.append(svgElement('line', { x1: 0, y1: height, x2: width, y2: height, class: 'axis' }));
  points.forEach((point, i) => {
    let y = height;
    for (const name of names) {
      const value = point.values[name] ?? 0;
      if (value === 0) continue;
      const h = (value / max) * (height - 4);
      y -= h;
      const rect = svgElement('rect', {
        x: i * bar + 0.5,
        y,
        width: Math.max(1, bar - 1),
        height: h,
        fill: colourOf(name),
        'data-series': name,
      });
      const title = svgElement('title');
      title.textContent = `${loyaltyDates.timeText(point.at)}: ${num(value)} ${name}`;
      rect.append(title);
      svg.append(rect);
    }
  });
  const top = svgElement('text', { x: 2, y: 10, class: 'label' });
  top.textContent = `${num(max)}/min`;
  const first = svgElement('text', { x: 2, y: height + 13, class: 'label' });
  first.textContent = points.length ? loyaltyDates.timeText(points[0].at) : '';
  const last = svgElement('text', { x: width - 2, y: height + 13, class: 'label', 'text-anchor': 'end' });
  last.textContent = 'now';
  svg.append(top, first, last);
  container.replaceChildren(svg, legend(names));
};

/** bars: [{ name, value, colour }]. One horizontal bar each, longest first, in the colour it means. */
window.drawBars = function drawBars(container, bars) {
  const entries = [...bars].sort((a, b) => b.value - a.value);
  const max = Math.max(1, ...entries.map(({ value }) => value));
  const row = 22;
  // Room on the left for a label of a few words ("cancelled before earning"), the bar and its count after it.
  const labels = 150;
  const longest = 120;
  const svg = svgElement('svg', {
    viewBox: `0 0 300 ${Math.max(row, entries.length * row)}`,
    role: 'img',
    'aria-label': entries.map(({ name, value }) => `${name} ${num(value)}`).join(', ') || 'no orders yet',
  });
  entries.forEach(({ name, value, colour }, i) => {
    svg.append(
      svgElement('rect', {
        x: labels + 4,
        y: i * row + 3,
        width: Math.max(1, (value / max) * longest),
        height: row - 8,
        fill: colour ?? colourOf(name),
        'data-series': name,
      }),
    );
    const label = svgElement('text', { x: labels, y: i * row + 15, class: 'label', 'text-anchor': 'end' });
    label.textContent = name;
    const count = svgElement('text', { x: labels + 8 + (value / max) * longest, y: i * row + 15, class: 'label' });
    count.textContent = num(value);
    svg.append(label, count);
  });
  container.replaceChildren(svg);
};
