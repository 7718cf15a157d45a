// Reading every order modified since a time, oldest first, from an API that pages by number (WooCommerce,
// BigCommerce V2). Plain page numbers skip an order whenever one on an earlier page is modified during the
// read, so each page starts from the last order's modification time (less a second: the APIs compare whole
// seconds), and orders already read in that state are passed over.
export interface OrderStamp {
  id: string;
  /** When the order was last modified, as the API says it. */
  modified: Date | undefined;
}

export async function* ordersModifiedSince<T>(
  fetchPage: (after: Date, page: number) => Promise<T[]>,
  stampOf: (order: T) => OrderStamp,
  since: Date,
  pageSize: number,
): AsyncGenerator<T> {
  let cursor = since.getTime();
  let page = 1;
  /** Orders read in the state they were read in, kept only as long as the cursor can return them. */
  const read = new Map<string, number>();
  for (;;) {
    const orders = await fetchPage(new Date(cursor === since.getTime() ? cursor : cursor - 1_000), page);
    for (const order of orders) {
      const { id, modified } = stampOf(order);
      const at = modified?.getTime() ?? cursor;
      if (read.get(id) === at) continue;
      read.set(id, at);
      yield order;
    }
    if (orders.length < pageSize) return;
    const last = stampOf(orders[orders.length - 1] as T).modified?.getTime() ?? cursor;
    if (last > cursor) {
      cursor = last;
      page = 1;
      for (const [id, at] of read) if (at < cursor - 1_000) read.delete(id);
    } else {
      // A whole page modified in the same second: page on within it.
      page++;
    }
  }
}
