// Polaris web components as a browser test serves them at Shopify's CDN
// address: made from Shopify's own Custom Elements Manifest
// (@shopify/polaris-types, custom-elements.json), never from the page's code.
// Every element the manifest declares is defined, with the attributes,
// properties and events it declares; nothing else is. Fields draw a real
// input in an open shadow root (so a test types into them as a merchant
// would) and keep `value` / `checked` and their input and change events as
// the manifest says; buttons of type submit submit their form, as Polaris's
// do; the rest draw their heading (when the manifest gives them one) and
// their children. Polaris's look is not Polaris's own (that comes from
// Shopify's CDN): each drawn part is named as the bridge's stand-ins name
// theirs (part="button", "input", "section", ...), and styled by
// polaris-look.css, which scripts/platform-looks.ts makes from Polaris's
// published design tokens (@shopify/polaris-tokens), so that screenshots
// are a truthful stand-in.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const LOOK = fileURLToPath(new URL('./polaris-look.css', import.meta.url));
const MANIFEST = fileURLToPath(
  new URL('../../node_modules/@shopify/polaris-types/dist/custom-elements.json', import.meta.url),
);

export interface PolarisElement {
  tagName: string;
  attributes: string[];
  events: string[];
  slots: string[];
}

interface Declaration {
  tagName?: string;
  attributes?: Array<{ name: string }>;
  events?: Array<{ name: string }>;
  slots?: Array<{ name: string }>;
}

/** Every element of Polaris web components, as Shopify's manifest declares it. */
export function polarisElements(): PolarisElement[] {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as { modules: Array<{ declarations?: Declaration[] }> };
  return manifest.modules
    .flatMap((module) => module.declarations ?? [])
    .filter((declaration): declaration is Declaration & { tagName: string } => Boolean(declaration.tagName))
    .map((declaration) => ({
      tagName: declaration.tagName,
      attributes: [...new Set((declaration.attributes ?? []).map((attribute) => attribute.name))],
      events: [...new Set((declaration.events ?? []).map((event) => event.name))],
      slots: (declaration.slots ?? []).map((slot) => slot.name),
    }));
}

/** The script served at Polaris's CDN address in a browser test. */
export function fakePolaris(): string {
  return `(() => {
  const elements = ${JSON.stringify(polarisElements())};
  const FIELD_INPUT = { 's-text-field': 'text', 's-password-field': 'password', 's-email-field': 'email', 's-number-field': 'number', 's-url-field': 'url', 's-search-field': 'search', 's-text-area': 'textarea', 's-date-field': 'date' };
  for (const spec of elements) {
    if (customElements.get(spec.tagName)) continue;
    const isField = spec.tagName in FIELD_INPUT || spec.tagName === 's-select';
    const isToggle = spec.tagName === 's-switch' || spec.tagName === 's-checkbox';
    class Element extends HTMLElement {
      static observedAttributes = spec.attributes;
      #value = '';
      #checked = false;
      constructor() {
        super();
        this.attachShadow({ mode: 'open' });
      }
      connectedCallback() {
        this.render();
        // A select's options are its children, which the parser adds after the element itself.
        if (spec.tagName === 's-select') new MutationObserver(() => this.render()).observe(this, { childList: true, subtree: true, characterData: true });
      }
      attributeChangedCallback() {
        if (this.isConnected) this.render();
      }
      get value() { return this.#value; }
      set value(next) { this.#value = String(next ?? ''); const input = this.shadowRoot.querySelector('input, select, textarea'); if (input && input.value !== this.#value) input.value = this.#value; }
      get checked() { return this.#checked; }
      set checked(next) { this.#checked = Boolean(next); const input = this.shadowRoot.querySelector('input'); if (input) input.checked = this.#checked; }
      emit(name) { if (spec.events.includes(name)) this.dispatchEvent(new Event(name, { bubbles: true, composed: true })); }
      render() {
        const root = this.shadowRoot;
        root.textContent = '';
        const label = this.getAttribute('label') ?? this.getAttribute('heading');
        if (isField || isToggle) {
          const wrapper = document.createElement('label');
          wrapper.setAttribute('part', isToggle ? 'field toggle' : 'field');
          const text = document.createElement('span');
          text.setAttribute('part', 'label');
          text.textContent = label ?? '';
          wrapper.append(text);
          let input;
          if (spec.tagName === 's-select') {
            input = document.createElement('select');
            for (const option of this.querySelectorAll('s-option')) {
              const made = document.createElement('option');
              made.value = option.getAttribute('value') ?? '';
              made.textContent = option.textContent;
              input.append(made);
            }
          } else if (FIELD_INPUT[spec.tagName] === 'textarea') {
            input = document.createElement('textarea');
          } else {
            input = document.createElement('input');
            input.type = isToggle ? 'checkbox' : FIELD_INPUT[spec.tagName];
          }
          input.setAttribute('part', isToggle ? 'check' : 'input');
          if (isToggle) input.checked = this.#checked;
          else input.value = this.#value || this.getAttribute('value') || '';
          if (!isToggle && !this.#value && this.getAttribute('value')) this.#value = this.getAttribute('value');
          if (spec.tagName === 's-select' && !this.#value) this.#value = input.value;
          input.disabled = this.hasAttribute('disabled');
          input.addEventListener('input', () => { if (isToggle) this.#checked = input.checked; else this.#value = input.value; this.emit('input'); });
          input.addEventListener('change', () => { if (isToggle) this.#checked = input.checked; else this.#value = input.value; this.emit('change'); });
          // The label's text first (as a test reads it); a toggle's box drawn before it, by the layout below.
          wrapper.append(input);
          root.append(wrapper);
          const details = this.getAttribute('details');
          if (details) { const small = document.createElement('small'); small.setAttribute('part', 'details'); small.textContent = details; root.append(small); }
          const error = this.getAttribute('error');
          if (error) { const shown = document.createElement('strong'); shown.setAttribute('part', 'error'); shown.setAttribute('role', 'alert'); shown.textContent = error; root.append(shown); }
          return;
        }
        if (spec.tagName === 's-button') {
          const button = document.createElement('button');
          button.setAttribute('part', 'button');
          button.disabled = this.hasAttribute('disabled');
          // What a screen reader says for it, where its text alone would not say which (accessibilityLabel).
          const named = this.getAttribute('accessibilitylabel');
          if (named) button.setAttribute('aria-label', named);
          button.append(document.createElement('slot'));
          button.addEventListener('click', () => {
            if (this.getAttribute('type') === 'submit') this.closest('form')?.requestSubmit();
          });
          root.append(button);
          return;
        }
        // A container's box, named as the stand-ins name theirs.
        const part = { 's-page': 'page', 's-section': 'section', 's-banner': 'banner', 's-badge': 'badge', 's-paragraph': 'paragraph' }[spec.tagName];
        const box = part ? document.createElement(spec.tagName === 's-badge' ? 'span' : 'div') : root;
        if (part) { box.setAttribute('part', part); root.append(box); }
        if (label && spec.attributes.includes('heading')) {
          const heading = document.createElement(spec.tagName === 's-page' ? 'h1' : 'h2');
          heading.setAttribute('part', spec.tagName === 's-page' ? 'title' : 'heading');
          heading.textContent = label;
          box.append(heading);
        }
        for (const name of spec.slots) {
          const slot = document.createElement('slot');
          if (name) slot.name = name;
          box.append(slot);
        }
        if (spec.slots.length === 0) box.append(document.createElement('slot'));
      }
    }
    customElements.define(spec.tagName, Element);
  }
  // A table's layout and the page's spacing, then Polaris's look from its tokens (polaris-look.css), then a table
  // as a list on a small screen.
  const layout = document.createElement('style');
  layout.textContent = ${JSON.stringify(
    'body{margin:0;padding:16px}s-table{display:block;overflow-x:auto;margin:.5em 0}s-table-header-row,s-table-row{display:table-row}s-table-header,s-table-cell{display:table-cell;vertical-align:top}s-table-body{display:table-row-group}s-table-cell:nth-child(3){min-width:14em}s-section,s-banner,s-text-field,s-password-field,s-email-field,s-number-field,s-date-field,s-select,s-switch{display:block;margin:0 0 12px}s-button{display:inline-block;margin:0 8px 12px 0}s-banner[hidden],s-section[hidden]{display:none}' +
      '::part(label){display:block}::part(toggle){display:flex;flex-direction:row-reverse;justify-content:flex-end;gap:8px;align-items:center}::part(input){box-sizing:border-box;width:100%;display:block}::part(details),::part(error){display:block}::part(paragraph){margin:0 0 12px}' +
      readFileSync(LOOK, 'utf8') +
      // On a small screen Polaris shows a table as a list (s-table's variant "auto"): each row a block.
      '@media (max-width:600px){s-table-header-row{display:none}s-table-row{display:block;padding:8px 0;border-bottom:1px solid #e3e3e3}s-table-row s-table-cell{display:block;min-width:0;padding:2px 0;border:0}s-table-cell[data-label]::before{content:attr(data-label) ": ";font-weight:550}}',
  )};
  document.head.append(layout);
})();`;
}
