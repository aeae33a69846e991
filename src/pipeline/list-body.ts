// The JSON text of a list answer (contract section 7, `next` of section 15): made in the
// execute step, not the respond step, so that the list cache can keep the text itself.
import type { ListQuery } from '../store/list-query.js';
import type { ListPage } from '../store/resource-store.js';
import { encodeCursor } from './list-cursor.js';

export function listBody(list: ListQuery, page: ListPage): string {
  const { items, total, totalExact, nextAfter } = page;
  const next = nextAfter === undefined ? null : encodeCursor(list.sort, nextAfter);
  return JSON.stringify({ items, total, total_exact: totalExact, limit: list.limit, offset: list.offset, next });
}
