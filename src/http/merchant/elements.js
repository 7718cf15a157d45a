// The merchant's page outside a platform's admin, where Polaris and App Bridge do not belong: the few Polaris
// elements the page uses are drawn with the browser's own controls, with the attributes and properties the
// page relies on, and App Bridge's part (the session token, toasts, the nav) is played by
// `window.loyaltyBridgeHost`. Loaded before merchant.js. Text is set with textContent, never as HTML.
// Each drawn part is named (part="…"), so that a platform's look (its module's stylesheet, linked by the page)
// styles it from outside: `s-button[variant="primary"]::part(button)`. What is drawn here is a neutral default.
(() => {
  const define = (tag, made) => customElements.get(tag) ?? customElements.define(tag, made);
  // merchant.css lays the table's parts out under this class only: inside the admin, Polaris draws them.
  document.documentElement.classList.add('standalone');
  const sheet = `:host{display:block;margin:0 0 16px}:host([hidden]){display:none}
    [part~=field]{display:block}[part~=label]{display:block;font-weight:600;margin:0 0 4px}
    [part~=toggle]{display:flex;gap:8px;align-items:center}[part~=toggle] [part~=label]{margin:0}
    [part~=input]{box-sizing:border-box;font:inherit;padding:6px 8px;width:100%;max-width:32em;border:1px solid #8a8f98;border-radius:4px;background:#fff;color:inherit}
    [part~=details]{display:block;color:#5c5f62;margin-top:4px;font-size:.875em}[part~=details]:empty{display:none}
    [part~=error]{display:block;color:#8e1f0b;margin-top:4px}[part~=error][hidden]{display:none}
    [part~=heading]{font-size:1.05rem;margin:0 0 12px}[part~=heading][hidden]{display:none}
    [part~=title]{font-size:1.5rem;margin:0 0 16px}[part~=title][hidden]{display:none}
    [part~=section]{border:1px solid #d9dbde;border-radius:8px;padding:16px;background:#fff}
    [part~=banner]{border:1px solid #d9dbde;border-left-width:4px;border-radius:4px;padding:12px 16px;background:#f6f7f8}
    :host([tone=critical]) [part~=banner]{border-color:#c5280c;background:#fff4f2}
    :host([tone=warning]) [part~=banner]{border-color:#b98900;background:#fff8e6}
    :host([tone=success]) [part~=banner]{border-color:#1f845a;background:#f0faf4}
    :host([tone=info]) [part~=banner]{border-color:#2c6ecb;background:#f2f7fe}
    [part~=banner] [part~=heading]{font-size:1rem;margin:0 0 4px}
    [part~=actions]{display:flex;flex-wrap:wrap;gap:8px}[part~=actions] ::slotted(*){display:inline-block;margin:8px 0 0}
    [part~=button]{font:inherit;font-weight:600;padding:6px 14px;border-radius:6px;border:1px solid #8a8f98;background:#fff;color:inherit;cursor:pointer}
    :host([variant=primary]) [part~=button]{background:#303030;border-color:#303030;color:#fff}
    [part~=nav]{display:flex;flex-wrap:wrap;gap:4px;border-bottom:1px solid #d9dbde;margin:0 0 16px}
    [part~=tab]{font:inherit;padding:8px 12px;border:0;border-bottom:2px solid transparent;background:none;color:inherit;cursor:pointer}
    [part~=current]{border-bottom-color:currentColor;font-weight:600}
    [part~=badge]{display:inline-block;padding:0 8px;border-radius:8px;background:#e3e3e3;font-size:.875em}
    :host([tone=critical]) [part~=badge]{background:#fedad9;color:#8e1f0b}
    :host([tone=success]) [part~=badge]{background:#cdfee1;color:#0c5132}
    [part~=paragraph]{margin:0 0 8px}`;

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

  /** A container that shows its heading attribute above its children, in `outer` named `part`. */
  const headed = (outer, part, heading = 'h2', headingPart = 'heading', after = '') =>
    class extends Drawn {
      static observedAttributes = ['heading'];
      constructor() {
        super(
          `<${outer} part="${part}"><${heading} part="${headingPart}" hidden></${heading}><slot></slot>${after}</${outer}>`,
        );
      }
      attributeChangedCallback() {
        const shown = this.shadowRoot.querySelector(heading);
        shown.textContent = this.getAttribute('heading') ?? '';
        shown.hidden = !shown.textContent;
      }
    };
  define('s-page', headed('main', 'page', 'h1', 'title'));
  define('s-section', headed('section', 'section'));
  // A banner's buttons are slotted as Polaris's are (slot="secondary-actions"): a default slot alone left them unseen.
  define(
    's-banner',
    headed('section', 'banner', 'h2', 'heading', '<div part="actions"><slot name="secondary-actions"></slot></div>'),
  );
  define(
    's-paragraph',
    class extends Drawn {
      constructor() {
        super('<p part="paragraph"><slot></slot></p>');
      }
    },
  );
  define(
    's-badge',
    class extends Drawn {
      constructor() {
        super('<span part="badge"><slot></slot></span>');
      }
    },
  );

  /**
   * A field: a label, the browser's input, the details line and its error (the `error` attribute, beside the
   * field it is about); `value` (or `checked`) is the input's.
   */
  const field = (type) =>
    class extends Drawn {
      static observedAttributes = ['label', 'details', 'error', 'placeholder', 'min', 'max', 'required'];
      constructor() {
        const control =
          type === 'select'
            ? '<select part="input select"></select>'
            : type === 'checkbox'
              ? '<input part="check" type="checkbox">'
              : `<input part="input ${type}" type="${type}">`;
        super(
          type === 'checkbox'
            ? `<label part="field toggle">${control}<span part="label"></span></label><small part="details"></small><strong part="error" hidden></strong>`
            : `<label part="field"><span part="label"></span>${control}</label><small part="details"></small><strong part="error" hidden></strong>`,
        );
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
        if (name === 'label') this.shadowRoot.querySelector('[part~=label]').textContent = value ?? '';
        else if (name === 'details') this.shadowRoot.querySelector('small').textContent = value ?? '';
        else if (name === 'error') {
          const error = this.shadowRoot.querySelector('strong');
          error.textContent = value ?? '';
          error.hidden = !value;
          if (value) this.input.setAttribute('aria-invalid', 'true');
          else this.input.removeAttribute('aria-invalid');
        } else if (value === null) this.input.removeAttribute(name);
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
  define('s-checkbox', field('checkbox'));
  define('s-select', field('select'));
  define('s-option', class extends HTMLElement {});

  // A button: type="submit" submits its form, as Polaris's does; accessibilitylabel is what a screen reader says.
  define(
    's-button',
    class extends Drawn {
      static observedAttributes = ['accessibilitylabel'];
      attributeChangedCallback(_name, _old, value) {
        const button = this.shadowRoot.querySelector('button');
        if (value === null) button.removeAttribute('aria-label');
        else button.setAttribute('aria-label', value);
      }
      constructor() {
        super('<button part="button" type="button"><slot></slot></button>');
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
        super('<progress part="progress"></progress>');
      }
      attributeChangedCallback(name, _old, value) {
        const bar = this.shadowRoot.querySelector('progress');
        if (value === null) bar.removeAttribute(name);
        else bar.setAttribute(name, value);
      }
    },
  );

  // The table's parts keep their children in the page: CSS gives them a table's layout.
  for (const tag of ['s-table', 's-table-header-row', 's-table-header', 's-table-body', 's-table-cell'])
    define(tag, class extends HTMLElement {});
  // A row with a click delegate (clickdelegate: an element's id) is clicked anywhere as that element, as Polaris's is.
  define(
    's-table-row',
    class extends HTMLElement {
      connectedCallback() {
        this.addEventListener('click', (event) => {
          const delegate = document.getElementById(this.getAttribute('clickdelegate') ?? '');
          if (delegate && !delegate.contains(event.target)) delegate.click();
        });
      }
    },
  );

  // The nav: a tab for each link; a click says where to go, as an admin's nav does (loyalty-bridge:navigate). The
  // view shown is the link merchant.js marks data-current, as an admin's nav marks the app's page.
  // A link of the page's own (the nav draws its links as tabs): reached by Tab, followed by Enter, as a link is.
  define(
    's-link',
    class extends HTMLElement {
      connectedCallback() {
        if (this.closest('s-app-nav') || this.hasAttribute('role')) return;
        this.setAttribute('role', 'link');
        this.tabIndex = 0;
        const label = this.getAttribute('accessibilitylabel');
        if (label) this.setAttribute('aria-label', label);
        this.addEventListener('keydown', (event) => {
          if (event.key === 'Enter') this.click();
        });
      }
    },
  );
  define(
    's-app-nav',
    class extends Drawn {
      constructor() {
        super('<nav part="nav"></nav>');
      }
      connectedCallback() {
        whenParsed(() => this.draw());
        new MutationObserver(() => this.mark()).observe(this, { subtree: true, attributeFilter: ['data-current'] });
      }
      draw() {
        const nav = this.shadowRoot.querySelector('nav');
        this.tabs = [...this.querySelectorAll('s-link')].map((link) => {
          const button = document.createElement('button');
          button.type = 'button';
          button.textContent = link.textContent;
          button.addEventListener('click', () =>
            link.dispatchEvent(new CustomEvent('loyalty-bridge:navigate', { bubbles: true })),
          );
          return { link, button };
        });
        nav.replaceChildren(...this.tabs.map(({ button }) => button));
        this.mark();
      }
      mark() {
        for (const { link, button } of this.tabs ?? []) {
          const current = link.hasAttribute('data-current');
          button.setAttribute('part', current ? 'tab current' : 'tab');
          if (current) button.setAttribute('aria-current', 'page');
          else button.removeAttribute('aria-current');
        }
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
        // A toast says what just happened, and goes, as an admin's do; the list keeps what it said for the tab.
        setTimeout(() => (item.hidden = true), options.duration ?? 5000);
      },
      /** The merchant moved on to another view: what was said of the last one goes. */
      clear() {
        for (const item of document.querySelectorAll('#toasts li')) item.hidden = true;
      },
    },
  };
})();
