// The SQL of a list request: the page and, for a filtered list, the count of its matches.
// Columns come from the registry (the parse step checked the query string against it) and
// every value is bound; each shape of query is compiled once (query-templates.ts).
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { EntryDatabase } from '../db/database-schema.js';
import type { DatabaseCapabilities, DialectQueries } from '../db/connect.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { EntrySelections } from './entry-rows.js';
import type { ListQuery, ListTotal, SortKey } from './list-query.js';
import type { QueryTemplate, QueryTemplates, SlotMaker } from './query-templates.js';

export interface ListStatements {
  readonly page: QueryTemplate<unknown>;
  /** The values of the page's slots. The page asks for one entry more than the limit: its
   * presence says there is a next page. */
  readonly pageValues: readonly unknown[];
  /** Counts the matches, at most `countValues`' last value of them; undefined for an
   * unfiltered list, whose total is kept in resource_counts. */
  readonly count: QueryTemplate<{ total: unknown }> | undefined;
  readonly countValues: readonly unknown[];
}

export function listStatements(
  db: EntryDatabase,
  templates: QueryTemplates,
  selections: EntrySelections,
  resource: CompiledResource,
  list: ListQuery,
  /** How the total is found (list-query.ts): a count statement only for `counted`. */
  total: ListTotal,
  countAtMost: number,
  capabilities: DatabaseCapabilities,
  queries: DialectQueries,
): ListStatements {
  const hideDeleted = resource.deletion.mode === 'soft' && !list.includeDeleted;
  const flagColumn = resource.deletion.mode === 'soft' ? resource.fields[resource.deletion.flagField]?.column : undefined;
  const search = list.search !== undefined && list.search.columns.length > 0 ? list.search : undefined;
  // Slots: the filter values, the ids of the link filters, the search pattern, then limit and offset.
  const values: unknown[] = [...list.filters.map((filter) => filter.value), ...list.linkFilters.map((filter) => filter.id)];
  // `!` escapes LIKE wildcards: unlike a backslash, it means the same in every dialect's literals.
  if (search !== undefined) values.push(`%${search.text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`);
  const indexed = search !== undefined && resource.searchIndex !== undefined ? queries.searchIndexMatch(resource.searchIndex, search.text) : undefined;
  if (indexed !== undefined) values.push(indexed.value);
  // With a set filter (`tag=`), the first one's link table drives the query: its index
  // (target, owner) read from the end gives the owners newest first, a page of them costs a
  // page of lookups and a count stops at its limit. Written `id in (select owner …)`, SQLite
  // would collect every owner of the tag first, on every request (docs/decisions.md, "A tag
  // filter is driven by its link table"). Only while the link table's columns cannot be mistaken for the resource's.
  const firstLink = list.linkFilters[0]?.link;
  const linkColumns = firstLink === undefined ? [] : [firstLink.ownerColumn, firstLink.targetColumn, ...(firstLink.ownerDeletedColumn === undefined ? [] : [firstLink.ownerDeletedColumn])];
  const canDrive = firstLink !== undefined && !linkColumns.some((column) => column in resource.fields || Object.values(resource.fields).some((field) => field.column === column));
  // Where the link table copies the owner's deleted flag, its index (target, owner, flag)
  // skips deleted owners without reading them.
  const linkFlag = canDrive && hideDeleted ? firstLink!.ownerDeletedColumn : undefined;
  const matching = (slot: SlotMaker, driven: boolean) => {
    const column = (name: string) => (driven ? `${resource.table}.${name}` : name);
    let query = driven
      ? db.selectFrom(firstLink!.table).crossJoin(resource.table).whereRef(`${resource.table}.id`, '=', `${firstLink!.table}.${firstLink!.ownerColumn}`)
      : db.selectFrom(resource.table);
    if (driven && linkFlag !== undefined) query = query.where(`${firstLink!.table}.${linkFlag}`, '=', 0);
    // "Not deleted" holds for nearly every server: it must not be looked up in an index
    // (a planner that did would then sort every live server), see DialectQueries.notIndexed.
    // Checked on the owner's row too where the link's copy decided already: the row is read
    // for the page anyway, and the check costs nothing there.
    if (hideDeleted && flagColumn !== undefined) query = query.where(queries.notIndexed(column(flagColumn)), '=', 0);
    list.filters.forEach((filter, index) => {
      query = query.where(column(filter.column), '=', slot(index));
    });
    list.linkFilters.forEach(({ link }, index) => {
      if (driven && index === 0) {
        query = query.where(`${link.table}.${link.targetColumn}`, '=', slot(list.filters.length));
        return;
      }
      const owners = db.selectFrom(link.table).select(link.ownerColumn).where(link.targetColumn, '=', slot(list.filters.length + index));
      query = query.where(column('id'), 'in', owners);
    });
    if (search !== undefined) {
      const pattern = slot(list.filters.length + list.linkFilters.length);
      query = query.where((eb) => eb.or(search.columns.map((name) => sql<boolean>`lower(${sql.ref(column(name))}) like ${pattern} escape '!'`)));
      if (indexed !== undefined) query = query.where(indexed.condition(slot(list.filters.length + list.linkFilters.length + 1)));
    }
    return query;
  };
  const linked = list.linkFilters.map((filter) => filter.link.table).join(',');
  const where = `${hideDeleted} ${list.filters.map((filter) => filter.column).join(',')} ${linked} ${search?.columns.join(',') ?? '-'} ${indexed !== undefined}`;
  const sort = list.sort.map((key) => `${key.column}${key.descending ? '-' : '+'}`).join(',');
  const after = list.after;
  // The SQL differs with which cursor values are NULL.
  const afterShape = after === undefined ? '-' : after.map((value) => (value === null ? 'n' : 'v')).join('');
  // Sorted by id alone (the default), the page driven by the link table is read in its owner order.
  const drivenPage = canDrive && list.sort.length === 1 && list.sort[0]!.column === 'id';
  const sortColumn = (key: SortKey) => (drivenPage ? `${firstLink!.table}.${firstLink!.ownerColumn}` : key.column);
  const page = templates.get(`page ${resource.table} ${where} ${sort} ${afterShape}`, (slot) => {
    let query = matching(slot, drivenPage).select(selections.all(resource));
    if (after !== undefined) query = query.where((eb) => afterPosition(eb, list.sort, after, (index) => slot(values.length + 2 + index), sortColumn));
    for (const key of list.sort) {
      const column = sortColumn(key);
      if (key.nullable && !capabilities.nullsSortFirst) query = query.orderBy(sql`${sql.ref(column)} ${sql.raw(key.descending ? 'desc nulls last' : 'asc nulls first')}`);
      else query = query.orderBy(column, key.descending ? 'desc' : 'asc');
    }
    return query.limit(slot(values.length)).offset(slot(values.length + 1));
  });
  // A count stopped after `countAtMost` matches: read through the index of the filter, it
  // costs at most that many index entries, however many match.
  // Filtered by one set alone, the matches are the link table's rows of that id (those of
  // live owners, from its copy of the flag): counted from its index, no owner read.
  const linkAlone = canDrive && list.linkFilters.length === 1 && list.filters.length === 0 && search === undefined && (!hideDeleted || linkFlag !== undefined);
  const counted = (slot: SlotMaker) => {
    if (!linkAlone) return matching(slot, canDrive);
    let query = db.selectFrom(firstLink!.table).where(firstLink!.targetColumn, '=', slot(0));
    if (linkFlag !== undefined) query = query.where(linkFlag, '=', 0);
    return query;
  };
  const count = total.kind === 'counted'
    ? templates.get(`count ${resource.table} ${where}`, (slot) =>
        db
          .selectFrom(counted(slot).select(sql.lit(1).as('one')).limit(slot(values.length)).as('matches'))
          .select((eb) => eb.fn.countAll().as('total')),
      )
    : undefined;
  return { page, pageValues: [...values, list.limit + 1, list.offset, ...(after ?? [])], count, countValues: [...values, countAtMost] };
}

/**
 * Rows strictly after `after` in the order of `sort` (NULL before every value): the first key
 * past its value, or equal to it and the second key past its value, and so on; the id, last,
 * makes the order total. A range on the first key comes first, so that the index on it is
 * entered at the cursor's position instead of read from its start.
 */
function afterPosition(
  eb: ExpressionBuilder<any, any>,
  sort: readonly SortKey[],
  after: readonly unknown[],
  slot: (index: number) => any,
  column: (key: SortKey) => string,
): Expression<SqlBool> {
  const ref = (key: SortKey) => eb.ref(column(key));
  const equal = (key: SortKey, index: number) => (after[index] === null ? eb(ref(key), 'is', null) : eb(ref(key), '=', slot(index)));
  const past = (key: SortKey, index: number): Expression<SqlBool> | undefined => {
    if (after[index] === null) return key.descending ? undefined : eb(ref(key), 'is not', null);
    const beyond = eb(ref(key), key.descending ? '<' : '>', slot(index));
    return key.descending && key.nullable ? eb.or([beyond, eb(ref(key), 'is', null)]) : beyond;
  };
  const branches: Expression<SqlBool>[] = [];
  sort.forEach((key, index) => {
    const step = past(key, index);
    if (step !== undefined) branches.push(eb.and([...sort.slice(0, index).map((earlier, j) => equal(earlier, j)), step]));
  });
  const first = sort[0]!;
  let range: Expression<SqlBool> | undefined;
  if (after[0] === null) range = first.descending ? eb(ref(first), 'is', null) : undefined;
  else if (!first.descending) range = eb(ref(first), '>=', slot(0));
  else if (!first.nullable) range = eb(ref(first), '<=', slot(0));
  const tail = branches.length === 0 ? eb.lit(false) : eb.or(branches);
  return range === undefined ? (tail as Expression<SqlBool>) : eb.and([range, tail as Expression<SqlBool>]);
}
