// A change the install may lack access for (the storefront, rewards): asked of the platform's admin where it can ask.
import { call, host } from './page.js';

/**
 * PUTs `request` to `path`; a 409 naming scopes the install lacks asks the platform's admin for them, where its
 * script can ask (the merchant approves there), and once approved the PUT is sent again.
 */
export async function putAskingScopes(path, request) {
  const put = () => call(path, { method: 'PUT', body: JSON.stringify(request) });
  let { status, body } = await put();
  const ask = host.scopes?.request;
  if (status === 409 && body.missingScopes?.length > 0 && ask) {
    // Refused (a required scope, which no dialog grants): the answer's words say how to get it.
    const granted = await Promise.resolve(ask.call(host.scopes, body.missingScopes)).catch(() => ({
      result: 'refused',
    }));
    if (!['declined-all', 'refused'].includes(granted?.result)) ({ status, body } = await put());
  }
  return { status, body };
}
