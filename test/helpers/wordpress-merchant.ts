// A merchant in WordPress, without a browser: follows the bridge's authorize
// link to the store, logs in, and approves (or denies) the connect, as the
// consent screen's links and forms do. Returns where WooCommerce sends them
// back (return_url with success and user_id).
const ADMIN = { user: 'admin', password: 'wordpress' };

async function follow(url: string, cookie: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    ...init,
    redirect: 'manual',
    headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string> | undefined) },
  });
}

const link = (html: string, id: string) => {
  const href = new RegExp(`id="${id}"[^>]*href="([^"]+)"|href="([^"]+)"[^>]*id="${id}"`).exec(html);
  return (href?.[1] ?? href?.[2])?.replaceAll('&#38;', '&');
};

export async function answerConsent(authorizeUrl: string, decision: 'approve' | 'deny', admin = ADMIN): Promise<URL> {
  let cookie = '';
  let response = await follow(authorizeUrl, cookie);
  // authorize -> login (not logged in)
  for (let hops = 0; response.status === 302 && hops < 5; hops++)
    response = await follow(new URL(response.headers.get('location')!, authorizeUrl).toString(), cookie);
  const loginPage = await response.text();
  const action = /<form id="loginform" method="post" action="([^"]+)"/.exec(loginPage)?.[1];
  const redirectTo = /name="redirect_to" value="([^"]+)"/.exec(loginPage)?.[1]?.replaceAll('&#38;', '&');
  if (!action || !redirectTo) throw new Error(`no login form: ${loginPage.slice(0, 300)}`);
  const login = await follow(new URL(action, authorizeUrl).toString(), cookie, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ log: admin.user, pwd: admin.password, redirect_to: redirectTo }).toString(),
  });
  cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const consent = await (await follow(login.headers.get('location')!, cookie)).text();
  const next = link(consent, decision);
  if (!next) throw new Error(`no ${decision} link: ${consent.slice(0, 300)}`);
  // Denying is a plain link back to return_url.
  if (decision === 'deny') return new URL(next);
  const answer = await follow(new URL(next, authorizeUrl).toString(), cookie);
  if (answer.status !== 302)
    throw new Error(`WooCommerce answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`);
  return new URL(answer.headers.get('location')!);
}
