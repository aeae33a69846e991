// The SQL of a list request: the page and, for a filtered list, the count of its matches.
// Columns come from the registry (the parse step checked the query string against it) and
// every value is bound; each shape of query is compiled once (query-templates.ts).
import { sql, type Kysely } from 'kysely';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { EntrySelections } from './entry-rows.js';
import type { ListQuery } from './list-query.js';
import type { QueryTemplate, QueryTemplates, SlotMaker } from './query-templates.js';

type AnyDb = Kysely<any>;

export interface ListStatements {
  readonly page: QueryTemplate<unknown>;
  /** The values of the page's slots. */
  readonly pageValues: readonly unknown[];
  /** Counts the matches, at most `countValues`' last value of them; undefined for an
   * unfiltered list, whose total is kept in resource_counts. */
  readonly count: QueryTemplate<{ total: unknown }> | undefined;
  readonly countValues: readonly unknown[];
}

export function listStatements(
  db: AnyDb,
  templates: QueryTemplates,
  selections: EntrySelections,
  resource: ResourceDefinition,
  list: ListQuery,
  countAtMost: number,
): ListStatements {
  const hideDeleted = resource.deletion.mode === 'soft' && !list.includeDeleted;
  const flagColumn = resource.deletion.mode === 'soft' ? resource.fields[resource.deletion.flagField]?.column : undefined;
  const search = list.search !== undefined && list.search.columns.length > 0 ? list.search : undefined;
  // Slots: the filter values, the ids of the link filters, the search pattern, then limit and offset.
  const values: unknown[] = [...list.filters.map((filter) => filter.value), ...list.linkFilters.map((filter) => filter.id)];
  // `!` escapes LIKE wildcards: unlike a backslash, it means the same in every dialect's literals.
  if (search !== undefined) values.push(`%${search.text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`);
  const matching = (slot: SlotMaker) => {
    let query = db.selectFrom(resource.table);
    if (hideDeleted && flagColumn !== undefined) query = query.where(flagColumn, '=', 0);
    list.filters.forEach((filter, index) => {
      query = query.where(filter.column, '=', slot(index));
    });
    list.linkFilters.forEach(({ link }, index) => {
      const owners = db.selectFrom(link.table).select(link.ownerColumn).where(link.targetColumn, '=', slot(list.filters.length + index));
      query = query.where('id', 'in', owners);
    });
    if (search !== undefined) {
      const pattern = slot(list.filters.length + list.linkFilters.length);
      query = query.where((eb) => eb.or(search.columns.map((column) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '!'`)));
    }
    return query;
  };
  const linked = list.linkFilters.map((filter) => filter.link.table).join(',');
  const where = `${hideDeleted} ${list.filters.map((filter) => filter.column).join(',')} ${linked} ${search?.columns.join(',') ?? '-'}`;
  const sort = list.sort.map((key) => `${key.column}${key.descending ? '-' : '+'}`).join(',');
  const page = templates.get(`page ${resource.table} ${where} ${sort}`, (slot) => {
    let query = matching(slot).select(selections.all(resource));
    for (const key of list.sort) query = query.orderBy(key.column, key.descending ? 'desc' : 'asc');
    return query.limit(slot(values.length)).offset(slot(values.length + 1));
  });
  const filtered = list.filters.length > 0 || list.linkFilters.length > 0 || search !== undefined;
  // A count stopped after `countAtMost` matches: read through the index of the filter, it
  // costs at most that many index entries, however many match.
  const count = filtered
    ? templates.get(`count ${resource.table} ${where}`, (slot) =>
        db
          .selectFrom(matching(slot).select(sql.lit(1).as('one')).limit(slot(values.length)).as('matches'))
          .select((eb) => eb.fn.countAll().as('total')),
      )
    : undefined;
  return { page, pageValues: [...values, list.limit, list.offset], count, countValues: [...values, countAtMost] };
}
