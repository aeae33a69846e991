// Parse step, lists: the query string of a list request (contract section 7), checked against
// the registry. Sort keys and filters name registry fields, which map to registry columns, so
// nothing a client sends is ever spliced into SQL.
import { makeRoom } from '../db/bounded-map.js';
import { apiError } from '../errors/api-error.js';
import type { CompiledResource, ListField } from '../registry/compiled-resource.js';
import type { Filter, LinkFilter, ListQuery, SortKey } from '../store/list-query.js';
import { decodeCursor } from './list-page.js';
import { parseId } from './request-target.js';

export const LIMIT_DEFAULT = 100;
export const LIMIT_MAX = 1000;
export const OFFSET_MAX = 1_000_000_000;
export const SEARCH_MAX = 200;
export const SORT_KEYS_MAX = 8;

/** Refuses any query parameter not in `known`: a mistake is said, not ignored. */
export function refuseUnknownParameters(query: Record<string, unknown>, known: readonly string[]): void {
  for (const name in query) if (!known.includes(name)) throw apiError('BAD_QUERY', 'query.unknown', { parameter: name });
}

// C0 and C1 control characters, and DEL: no stored text holds one, and a NUL is refused by
// PostgreSQL's driver itself (a 500 where a 400 is due).
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** The one value of a query parameter given once, free of control characters; 400 otherwise. */
export function single(name: string, value: unknown): string {
  if (typeof value !== 'string') throw apiError('BAD_QUERY', 'query.repeated', { parameter: name });
  if (CONTROL_CHARACTER.test(value)) throw apiError('BAD_QUERY', 'query.controlCharacter', { parameter: name });
  return value;
}

export function integerParameter(name: string, raw: unknown, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = single(name, raw);
  const number = /^\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max)) throw apiError('BAD_QUERY', 'query.integerRange', { parameter: name, min, max });
  return number;
}

function parseSort(raw: unknown, fields: ReadonlyMap<string, ListField>): SortKey[] {
  if (raw === undefined) return [{ column: 'id', descending: true, nullable: false }];
  const keys = single('sort', raw).split(',');
  if (keys.length > SORT_KEYS_MAX) throw apiError('BAD_QUERY', 'query.sort', { parameter: 'sort', max: SORT_KEYS_MAX });
  const sort: SortKey[] = [];
  const seen = new Set<string>();
  for (const key of keys) {
    const descending = key.startsWith('-');
    const name = descending ? key.slice(1) : key;
    const field = fields.get(name);
    if (field === undefined || seen.has(name)) throw apiError('BAD_QUERY', 'query.sort', { parameter: 'sort', max: SORT_KEYS_MAX });
    seen.add(name);
    sort.push({ column: field.column, descending, nullable: field.nullable });
  }
  // The id breaks ties in the direction of the last key, so that an index on (column, id)
  // yields the whole order on every backend (a mixed order would sort every match).
  if (!seen.has('id')) sort.push({ column: 'id', descending: sort[sort.length - 1]!.descending, nullable: false });
  return sort;
}

function parseSearch(raw: unknown, resource: CompiledResource): ListQuery['search'] {
  if (raw === undefined) return undefined;
  const text = single('q', raw);
  if (text.length === 0 || text.length > SEARCH_MAX) throw apiError('BAD_QUERY', 'query.search', { parameter: 'q', max: SEARCH_MAX });
  // A copy: the list query is the caller's, the compiled resource's list is shared.
  return { text, columns: [...resource.searchColumns] };
}

export function parseListQuery(resource: CompiledResource, query: Record<string, unknown>): ListQuery {
  const fields = resource.listFields;
  const list: { -readonly [K in keyof ListQuery]: ListQuery[K] } & { filters: Filter[]; linkFilters: LinkFilter[] } = {
    limit: integerParameter('limit', query.limit, 1, LIMIT_MAX, LIMIT_DEFAULT),
    offset: integerParameter('offset', query.offset, 0, OFFSET_MAX, 0),
    sort: parseSort(query.sort, fields),
    filters: [],
    linkFilters: [],
    search: parseSearch(query.q, resource),
    includeDeleted: false,
  };
  const softDelete = resource.deletion.mode === 'soft' ? resource.deletion : undefined;
  for (const [name, raw] of Object.entries(query)) {
    if (name === 'limit' || name === 'offset' || name === 'sort' || name === 'q') continue;
    if (name === 'after') {
      const kinds = list.sort.map((key) => [...fields.values()].find((field) => field.column === key.column)!.kind);
      list.after = decodeCursor(single(name, raw), list.sort, kinds);
      continue;
    }
    if (name === 'include_deleted' && softDelete !== undefined) {
      const value = single(name, raw);
      if (value !== 'true' && value !== 'false') throw apiError('BAD_QUERY', 'query.boolean', { parameter: name });
      list.includeDeleted = value === 'true';
      continue;
    }
    const link = resource.linkFilters.get(name);
    if (link !== undefined) {
      // Repeatable: entries holding every id named.
      for (const text of Array.isArray(raw) ? raw : [raw]) {
        const id = typeof text === 'string' ? parseId(text) : undefined;
        if (id === undefined) throw apiError('BAD_QUERY', 'query.filterValue', { parameter: name });
        if (!list.linkFilters.some((filter) => filter.id === id)) list.linkFilters.push({ link, id });
      }
      continue;
    }
    const field = fields.get(name);
    if (field === undefined) throw apiError('BAD_QUERY', 'query.unknown', { parameter: name });
    const value = field.parse(single(name, raw));
    if (value === undefined) throw apiError('BAD_QUERY', 'query.filterValue', { parameter: name });
    list.filters.push({ column: field.column, value });
    // Asking for is_deleted=1 means asking for deleted entries.
    if (name === softDelete?.flagField) list.includeDeleted = true;
  }
  return list;
}

// The same query string always parses to the same list query, so dashboards polling a few
// URLs need not parse theirs at every request: the last queries parsed, by resource and
// query string as sent (only those that parsed; a refusal is thrown anew each time). The
// list query kept is shared by every request of that string, which also lets its entity tag
// be remembered (listTag). Query strings are the clients' to choose: the memo is bounded.
// It is the pipeline's, not the compiled registry's: it holds what clients sent, not what
// follows from a resource's definition.
const PARSED_KEPT = 1000;
const parsedByResource = new WeakMap<CompiledResource, Map<string, ListQuery>>();

/** parseListQuery, remembered by `rawQuery`: the query string `query` was parsed from. */
export function parseListQueryOf(resource: CompiledResource, rawQuery: string, query: Record<string, unknown>): ListQuery {
  let parsed = parsedByResource.get(resource);
  if (parsed === undefined) {
    parsed = new Map();
    parsedByResource.set(resource, parsed);
  }
  let list = parsed.get(rawQuery);
  if (list === undefined) {
    list = parseListQuery(resource, query);
    makeRoom(parsed, PARSED_KEPT);
    parsed.set(rawQuery, list);
  }
  return list;
}
