// The CLI's way to a running bridge: its admin API, with the admin token.
import got from 'got';

export class AdminClientError extends Error {}

export function adminClient(url: string, token: string | undefined) {
  if (!token) throw new AdminClientError('--url needs the admin token: pass --token or set ADMIN_TOKEN');
  const http = got.extend({
    prefixUrl: `${url.replace(/\/+$/, '')}/admin/api`,
    headers: { authorization: `Bearer ${token}` },
    timeout: { request: 30_000 },
    retry: { limit: 1 },
    throwHttpErrors: false,
    responseType: 'json',
  });
  const call = async <T>(method: 'get' | 'post' | 'delete', path: string, json?: unknown): Promise<{ status: number; body: T }> => {
    const response = await http(path, { method, ...(json === undefined ? {} : { json }) });
    if (response.statusCode === 401) throw new AdminClientError(`the bridge at ${url} refused the admin token`);
    if (response.statusCode === 404 && path === 'status') throw new AdminClientError(`the bridge at ${url} has no admin API (is ADMIN_TOKEN set there?)`);
    return { status: response.statusCode, body: response.body as T };
  };
  return {
    get: <T>(path: string) => call<T>('get', path),
    post: <T>(path: string, json: unknown = {}) => call<T>('post', path, json),
    delete: <T>(path: string) => call<T>('delete', path),
  };
}
