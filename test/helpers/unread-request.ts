// A storefront request whose body throws when read: who asks must be decided from its headers and query alone.
export function unreadRequest(path: string, headers: Record<string, string>, query: Record<string, string>): Request {
  const made = new Request(`http://bridge.example${path}?${new URLSearchParams(query).toString()}`, { headers });
  for (const read of ['body', 'arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text'])
    Object.defineProperty(made, read, {
      get() {
        throw new Error('the body was read');
      },
    });
  return made;
}
