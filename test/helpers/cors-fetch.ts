// fetch() as a browser runs it for a script at another origin (a web worker whose origin is `origin`), for the tests
// of calls a page or an extension makes to the bridge: node's fetch applies no CORS, a browser does. By the Fetch
// standard (https://fetch.spec.whatwg.org/#http-cors-protocol): a request that is not simple (any method but GET,
// HEAD and POST, or a header beyond the safelisted ones, such as Authorization) is sent only after a preflight
// (OPTIONS) whose answer allows the origin, the method and each header; and the script reads an answer only when
// it allows the origin ("*" or the origin itself, in credentials mode "omit", as here). Otherwise the script gets a
// TypeError and never sees the answer, which is what this throws.

const SAFE_HEADERS = new Set(['accept', 'accept-language', 'content-language', 'content-type']);
const SIMPLE_METHODS = new Set(['GET', 'HEAD', 'POST']);

const allows = (answer: Response, origin: string) => {
  const allowed = answer.headers.get('access-control-allow-origin');
  return allowed === '*' || allowed === origin;
};

const listed = (answer: Response, name: string) =>
  (answer.headers.get(name) ?? '')
    .split(',')
    .map((each) => each.trim().toLowerCase())
    .filter(Boolean);

/** A fetch that refuses, as a browser does, what the bridge's CORS answers do not allow for `origin`. */
export function crossOriginFetch(origin: string): typeof fetch {
  return async (input, init = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    const names = [...headers.keys()].map((name) => name.toLowerCase());
    const unsafe = names.filter((name) => !SAFE_HEADERS.has(name));
    if (!SIMPLE_METHODS.has(method) || unsafe.length > 0) {
      const preflight = await fetch(input, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': method,
          ...(unsafe.length > 0 ? { 'access-control-request-headers': unsafe.sort().join(',') } : {}),
        },
      });
      const methodOk =
        SIMPLE_METHODS.has(method) || listed(preflight, 'access-control-allow-methods').includes(method.toLowerCase());
      const headersOk = unsafe.every((name) => listed(preflight, 'access-control-allow-headers').includes(name));
      if (!preflight.ok || !allows(preflight, origin) || !methodOk || !headersOk)
        throw new TypeError(`CORS preflight of ${method} from ${origin} refused (${preflight.status})`);
    }
    headers.set('origin', origin);
    const answer = await fetch(input, { ...init, headers });
    if (!allows(answer, origin)) throw new TypeError(`CORS: ${origin} may not read the answer (${answer.status})`);
    return answer;
  };
}
