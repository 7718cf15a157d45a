// The CLI's way to a running bridge: its admin API, with the admin token, by
// the bridge's one outbound policy (src/net/outbound.ts): https, or plain
// http to this machine only, since the token opens every customer's data;
// and no redirect to another scheme, host or port, which would carry it.
import { outboundGot } from '../net/outbound.ts';
import { refusalOf, refusalText } from '../net/refusal.ts';
import { BridgeError } from '../errors.ts';
import { trimTrailing } from '../trim-trailing.ts';

/** The running bridge's admin API refused or failed a request the CLI sent it. */
export class AdminClientError extends BridgeError<'admin_api'> {
  constructor(message: string) {
    super('admin_api', message);
  }
}

export function adminClient(url: string, token: string | undefined) {
  if (!token) throw new AdminClientError('--url needs the admin token: pass --token or set ADMIN_TOKEN');
  const http = outboundGot(
    { userAddress: false },
    {
      prefixUrl: `${trimTrailing(url, '/')}/admin/api`,
      headers: { authorization: `Bearer ${token}` },
      timeout: { request: 30_000 },
      retry: { limit: 1 },
      throwHttpErrors: false,
      responseType: 'json',
    },
  );
  const call = async <T>(
    method: 'get' | 'post' | 'patch' | 'delete',
    path: string,
    json?: unknown,
  ): Promise<{ status: number; body: T }> => {
    let response;
    try {
      response = await http(path, { method, ...(json === undefined ? {} : { json }) });
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal)
        throw new AdminClientError(
          `${refusalText(refusal)}: give --url the bridge's https address (plain http only on this machine)`,
        );
      throw error;
    }
    if (response.statusCode === 401) throw new AdminClientError(`the bridge at ${url} refused the admin token`);
    if (response.statusCode === 404 && path === 'status')
      throw new AdminClientError(`the bridge at ${url} has no admin API (is ADMIN_TOKEN set there?)`);
    return { status: response.statusCode, body: response.body as T };
  };
  return {
    get: <T>(path: string) => call<T>('get', path),
    post: <T>(path: string, json: unknown = {}) => call<T>('post', path, json),
    patch: <T>(path: string, json: unknown) => call<T>('patch', path, json),
    delete: <T>(path: string) => call<T>('delete', path),
  };
}
