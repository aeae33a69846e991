// A list page as sent (contract section 7) and the cursor that continues it (`next`, section
// 15; `?after=` to continue). The page's JSON text is made in the execute step, not the
// respond step, so that the list cache can keep the text itself. A cursor holds the sort's column values of the last entry shown, and the sort it belongs to;
// the next page starts strictly after that position (keyset paging), so entries inserted or
// deleted meanwhile never make a walk skip or repeat one that exists throughout. It is
// base64url JSON: opaque to clients, but not secret (it holds values the page showed).
import { apiError } from '../errors/api-error.js';
import type { ColumnKind } from '../registry/compiled-resource.js';
import type { ListQuery, SortKey } from '../store/list-query.js';
import type { ListPage } from '../store/resource-store.js';

const signature = (sort: readonly SortKey[]): string => sort.map((key) => `${key.descending ? '-' : ''}${key.column}`).join(',');

export function encodeCursor(sort: readonly SortKey[], values: readonly unknown[]): string {
  return Buffer.from(JSON.stringify({ s: signature(sort), v: values })).toString('base64url');
}

/** The JSON text of a list answer. */
export function listBody(list: ListQuery, page: ListPage): string {
  const { items, total, totalExact, nextAfter } = page;
  const next = nextAfter === undefined ? null : encodeCursor(list.sort, nextAfter);
  return JSON.stringify({ items, total, total_exact: totalExact, limit: list.limit, offset: list.offset, next });
}

/** Every integer column is 32-bit: a value past that range fails the query on PostgreSQL. */
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

function isOfKind(value: unknown, kind: ColumnKind): boolean {
  // A forged cursor must not reach the database with a value its column cannot be compared
  // with (PostgreSQL fails the query, and names the value in its error).
  if (kind === 'integer') return typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
  return typeof value === 'string' && !value.includes('\u0000');
}

/** The values of a cursor made for `sort` (whose columns hold `kinds`); 400 BAD_QUERY for
 * anything else. */
export function decodeCursor(text: string, sort: readonly SortKey[], kinds: readonly ColumnKind[]): unknown[] {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]{1,4000}$/.test(text) ? JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) : undefined;
  } catch {
    parsed = undefined;
  }
  const cursor = parsed as { s?: unknown; v?: unknown } | undefined;
  const values = cursor?.v;
  const valid =
    cursor?.s === signature(sort) &&
    Array.isArray(values) &&
    values.length === sort.length &&
    values.every((value, index) => (value === null ? sort[index]!.nullable : isOfKind(value, kinds[index]!)));
  if (!valid) throw apiError('BAD_QUERY', 'query.cursor', { parameter: 'after' });
  return values as unknown[];
}
