// The merchant's page outside a platform's admin, where Polaris and App Bridge do not belong: the few Polaris
// elements the page uses are drawn with the browser's own controls, with the attributes and properties the
// page relies on, and App Bridge's part (the session token, toasts, the nav) is played by
// `window.loyaltyBridgeHost`. Loaded before merchant.js. Text is set with textContent, never as HTML.
(() => {
  const define = (tag, made) => customElements.get(tag) ?? customElements.define(tag, made);
  // merchant.css lays the table's parts out under this class only: inside the admin, Polaris draws them.
  document.documentElement.classList.add('standalone');
  const sheet = `:host{display:block;margin:0 0 12px}:host([hidden]){display:none}label{display:block;font-weight:600;margin-bottom:2px}
    input,select{font:inherit;padding:4px 6px;min-width:16em}small{display:block;color:#5c5f62}
    h2{font-size:1.05rem;margin:0 0 8px}section{border:1px solid #e1e3e5;border-radius:8px;padding:12px 16px}`;

  /** Runs once the page's markup is all parsed: an element defined before it is connected before its children. */
  const whenParsed = (run) =>
    document.readyState === 'loading' ? document.addEventListener('DOMContentLoaded', run, { once: true }) : run();

  /** An element with an open shadow root holding `html` (the page's own markup, never a customer's text). */
  class Drawn extends HTMLElement {
    constructor(html) {
      super();
      this.attachShadow({ mode: 'open' }).innerHTML = `<style>${sheet}</style>${html}`;
    }
  }

  /** A container that shows its heading attribute above its children. */
  const headed = (outer) =>
    class extends Drawn {
      static observedAttributes = ['heading'];
      constructor() {
        super(`<${outer}><h2 hidden></h2><slot></slot></${outer}>`);
      }
      attributeChangedCallback() {
        const heading = this.shadowRoot.querySelector('h2');
        heading.textContent = this.getAttribute('heading') ?? '';
        heading.hidden = !heading.textContent;
      }
    };
  define('s-page', headed('main'));
  define('s-section', headed('section'));
  define('s-banner', headed('section'));
  define(
    's-paragraph',
    class extends Drawn {
      constructor() {
        super('<p style="margin:0"><slot></slot></p>');
      }
    },
  );

  /** A field: a label, the browser's input, and the details line; `value` (or `checked`) is the input's. */
  const field = (type) =>
    class extends Drawn {
      static observedAttributes = ['label', 'details', 'placeholder', 'min', 'max', 'required'];
      constructor() {
        const control = type === 'select' ? '<select></select>' : `<input type="${type}">`;
        super(`<label><span></span>${control}</label><small></small>`);
        this.input = this.shadowRoot.querySelector('input, select');
        this.input.addEventListener('input', () => this.dispatchEvent(new Event('input', { bubbles: true })));
        this.input.addEventListener('change', () => this.dispatchEvent(new Event('change', { bubbles: true })));
      }
      connectedCallback() {
        whenParsed(() => this.options());
      }
      /** A select's options, from its s-option children (once they are there). */
      options() {
        if (type === 'select' && this.input.options.length === 0)
          for (const option of this.querySelectorAll('s-option'))
            this.input.append(new Option(option.textContent, option.getAttribute('value') ?? ''));
      }
      attributeChangedCallback(name, _old, value) {
        if (name === 'label') this.shadowRoot.querySelector('label span').textContent = value ?? '';
        else if (name === 'details') this.shadowRoot.querySelector('small').textContent = value ?? '';
        else if (value === null) this.input.removeAttribute(name);
        else this.input.setAttribute(name, value);
      }
      get name() {
        return this.getAttribute('name');
      }
      get value() {
        this.options();
        return this.input.value;
      }
      set value(next) {
        this.options();
        this.input.value = next ?? '';
      }
      get checked() {
        return this.input.checked;
      }
      set checked(next) {
        this.input.checked = Boolean(next);
      }
    };
  define('s-text-field', field('text'));
  define('s-password-field', field('password'));
  define('s-email-field', field('email'));
  define('s-number-field', field('number'));
  define('s-date-field', field('date'));
  define('s-switch', field('checkbox'));
  define('s-select', field('select'));
  define('s-option', class extends HTMLElement {});

  // A button: type="submit" submits its form, as Polaris's does.
  define(
    's-button',
    class extends Drawn {
      constructor() {
        super('<button type="button"><slot></slot></button>');
        this.shadowRoot.querySelector('button').addEventListener('click', () => {
          if (this.getAttribute('type') === 'submit') this.closest('form')?.requestSubmit();
        });
      }
    },
  );

  define(
    's-progress',
    class extends Drawn {
      static observedAttributes = ['value', 'max'];
      constructor() {
        super('<progress></progress>');
      }
      attributeChangedCallback(name, _old, value) {
        const bar = this.shadowRoot.querySelector('progress');
        if (value === null) bar.removeAttribute(name);
        else bar.setAttribute(name, value);
      }
    },
  );

  // The table's parts keep their children in the page: CSS gives them a table's layout.
  for (const tag of ['s-table', 's-table-header-row', 's-table-header', 's-table-body', 's-table-row', 's-table-cell'])
    define(tag, class extends HTMLElement {});

  // The nav: a button for each link; a click says where to go, as an admin's nav does (loyalty-bridge:navigate).
  define('s-link', class extends HTMLElement {});
  define(
    's-app-nav',
    class extends Drawn {
      constructor() {
        super('<nav></nav>');
      }
      connectedCallback() {
        whenParsed(() => this.draw());
      }
      draw() {
        const nav = this.shadowRoot.querySelector('nav');
        nav.replaceChildren(
          ...[...this.querySelectorAll('s-link')].map((link) => {
            const button = document.createElement('button');
            button.type = 'button';
            button.textContent = link.textContent;
            button.addEventListener('click', () =>
              link.dispatchEvent(new CustomEvent('loyalty-bridge:navigate', { bubbles: true })),
            );
            return button;
          }),
        );
      }
    },
  );

  // App Bridge's part: the session the bridge handed this page, and toasts in a live region. The session comes in
  // the page itself, in the answer to the sign-in that made it, and never from the address: an address is what one
  // browser can hand another (an attacker's own session, to sign a victim in to the attacker's shop). It is kept
  // for the tab, so that a reload keeps it; the sign-in's address gives way to the page's own, so that a reload
  // does not send the sign-in again. Storage may be refused (a framed page, third-party storage blocked): then a
  // reload signs in again.
  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') ?? '';
  const pagePath = meta('loyalty-bridge-page');
  const kept = `loyalty-bridge-session:${pagePath || location.pathname}`;
  /** The tab's storage, read or written; undefined where the browser refuses it. */
  const tab = (use) => {
    try {
      return use(window.sessionStorage);
    } catch {
      return undefined;
    }
  };
  const given = meta('loyalty-bridge-session');
  if (given) tab((storage) => storage.setItem(kept, given));
  if (given && pagePath) history.replaceState(null, '', pagePath);
  const session = given || tab((storage) => storage.getItem(kept)) || '';
  window.loyaltyBridgeHost = {
    embedded: false,
    /** False: the page has no session of its own, and says where the merchant signs in. */
    signedIn: Boolean(session),
    whereToSignIn: meta('loyalty-bridge-where-to-sign-in'),
    signInAgain: meta('loyalty-bridge-sign-in') || undefined,
    idToken: async () => session,
    toast: {
      show(message, options = {}) {
        let list = document.getElementById('toasts');
        if (!list) {
          list = document.createElement('ul');
          list.id = 'toasts';
          list.setAttribute('role', 'status');
          document.body.prepend(list);
        }
        const item = document.createElement('li');
        item.textContent = message;
        if (options.isError) item.dataset.error = 'true';
        list.append(item);
      },
    },
  };
})();
