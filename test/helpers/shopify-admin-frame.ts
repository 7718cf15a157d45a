// The Shopify admin as a browser test plays it: a parent page at
// https://admin.shopify.com that frames the App URL, and App Bridge served
// at its CDN address. Like App Bridge, the script exposes shopify.idToken(),
// which asks the admin (the parent page, over postMessage) for a session
// token; and, as App Bridge does on Shopify's bounce page, when the address
// carries shopify-reload it asks for a fresh token and loads that address
// (of the app's own origin only) with it as id_token.
export const ADMIN_ORIGIN = 'https://admin.shopify.com';

export const fakeAppBridge = (adminOrigin = ADMIN_ORIGIN) => `(() => {
  const apiKey = document.querySelector('meta[name="shopify-api-key"]')?.content;
  if (!apiKey) throw new Error('App Bridge needs <meta name="shopify-api-key">');
  let next = 0;
  const waiting = new Map();
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || event.data?.type !== 'id-token') return;
    waiting.get(event.data.id)?.(event.data.token);
    waiting.delete(event.data.id);
  });
  window.shopify = {
    config: { apiKey },
    idToken: () => new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      window.parent.postMessage({ type: 'id-token', id, apiKey }, '${adminOrigin}');
    }),
  };
  const reload = new URLSearchParams(window.location.search).get('shopify-reload');
  if (reload) {
    const target = new URL(reload);
    if (target.origin !== window.location.origin) throw new Error('App Bridge reloads only the app itself');
    window.shopify.idToken().then((token) => {
      target.searchParams.set('id_token', token);
      window.location.replace(target.toString());
    });
  }
})();`;

/** The admin: frames the app and answers its requests for session tokens with what window.mintSessionToken gives. */
export const adminPage = (
  appUrl: string,
  appOrigin: string,
) => `<!doctype html><meta charset="utf-8"><title>Shopify admin</title>
<h1>Shopify admin · Apps · loyalty-bridge</h1>
<iframe id="app" src="${appUrl}" style="width:1240px;height:900px;border:0"></iframe>
<script>
  window.addEventListener('message', async (event) => {
    if (event.origin !== '${appOrigin}' || event.data?.type !== 'id-token') return;
    event.source.postMessage({ type: 'id-token', id: event.data.id, token: await window.mintSessionToken(event.data.apiKey) }, event.origin);
  });
</script>`;
