// One page of a BigCommerce V3 list, as the fakes answer it: `data` and `meta.pagination`, with the links to the pages
// around it. Shape from BigCommerce's "API Requests, Pagination" page: total, count, per_page, current_page,
// total_pages, links (previous, current, next).

/** Page `page` (from 1) of `all`, `limit` a page; `map` turns each item into what the list shows. */
export function pageOf<T, U = T>(
  all: readonly T[],
  page: number,
  limit: number,
  map: (item: T) => U = (item) => item as unknown as U,
) {
  const data = all.slice((page - 1) * limit, page * limit).map(map);
  const totalPages = Math.max(1, Math.ceil(all.length / limit));
  return {
    data,
    meta: {
      pagination: {
        total: all.length,
        count: data.length,
        per_page: limit,
        current_page: page,
        total_pages: totalPages,
        links: {
          ...(page > 1 ? { previous: `?page=${page - 1}&limit=${limit}` } : {}),
          current: `?page=${page}&limit=${limit}`,
          ...(page < totalPages ? { next: `?page=${page + 1}&limit=${limit}` } : {}),
        },
      },
    },
  };
}
