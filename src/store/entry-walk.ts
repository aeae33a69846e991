// Reading every entry that matches a list query, a batch at a time, for answers that are
// streamed rather than paged (contract section 17: service discovery and inventories). Each
// batch is one page statement of the list machinery (list-statements.ts), sorted by id and
// continued after the last id read (keyset, never offset): a batch costs the same at the end
// of a million entries as at the start, and only one batch is ever held in memory.
import { sql, type Kysely } from 'kysely';
import type { DatabaseCapabilities, DialectQueries } from '../db/connect.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { decodeEntry, type EntrySelections, type Entry, type Row } from './entry-rows.js';
import type { ListQuery } from './list-query.js';
import { listStatements } from './list-statements.js';
import { QueryTemplates } from './query-templates.js';

type AnyDb = Kysely<any>;

export interface WalkSources {
  readonly db: AnyDb;
  readonly templates: QueryTemplates;
  readonly selections: EntrySelections;
  readonly capabilities: DatabaseCapabilities;
  readonly queries: DialectQueries;
}

// Walks that read only a few columns (an inventory's group lists need a host's name, not its
// tags) compile their statements apart: a template's key names its clauses, not its columns.
const narrowTemplates = new WeakMap<QueryTemplates, Map<string, QueryTemplates>>();

function templatesFor(templates: QueryTemplates, columns: readonly string[]): QueryTemplates {
  let byColumns = narrowTemplates.get(templates);
  if (byColumns === undefined) {
    byColumns = new Map();
    narrowTemplates.set(templates, byColumns);
  }
  const key = columns.join(',');
  let narrow = byColumns.get(key);
  if (narrow === undefined) {
    narrow = new QueryTemplates();
    byColumns.set(key, narrow);
  }
  return narrow;
}

/** The entries `list` matches (its sort, limit, offset and cursor are ignored), ascending by
 * id, `batch` at most per statement. With `columns`, only the id and those columns are read,
 * as the database gives them (no field decoding: the caller knows what it asked for). */
export async function* walkEntries(sources: WalkSources, resource: ResourceDefinition, list: ListQuery, batch: number, columns?: readonly string[]): AsyncGenerator<Entry[]> {
  const { db, capabilities, queries } = sources;
  const templates = columns === undefined ? sources.templates : templatesFor(sources.templates, columns);
  const selected = columns === undefined ? undefined : [`${resource.table}.id`, ...columns.map((column) => `${resource.table}.${column}`)];
  const selections = selected === undefined ? sources.selections : ({ all: () => selected } as unknown as EntrySelections);
  const decode = (row: Row): Entry => (columns === undefined ? decodeEntry(resource, row) : ({ ...row, id: Number(row.id) } as Entry));
  let after: number | undefined;
  for (;;) {
    const query: ListQuery = { ...list, sort: [{ column: 'id', descending: false, nullable: false }], limit: batch, offset: 0, ...(after === undefined ? { after: undefined } : { after: [after] }) };
    // No count is run: only the page statement, which asks for one row more than `batch`.
    const statements = listStatements(db, templates, selections, resource, query, 0, capabilities, queries);
    const rows = (await statements.page.execute(db, statements.pageValues)).rows as Row[];
    const more = rows.length > batch;
    if (more) rows.pop();
    if (rows.length > 0) yield rows.map(decode);
    if (!more) return;
    after = Number(rows[rows.length - 1]!.id);
  }
}

/** The values of `column` that more than one live entry with the `filters` holds (empty text
 * left out): one grouped statement, whose answer is as long as the duplicates, not the entries. */
export async function sharedValues(sources: WalkSources, resource: ResourceDefinition, filters: ListQuery['filters'], column: string): Promise<Set<string>> {
  const { db, templates, queries } = sources;
  const flag = resource.deletion.mode === 'soft' ? resource.fields[resource.deletion.flagField]?.column : undefined;
  const key = `shared ${resource.table} ${column} ${filters.map((filter) => filter.column).join(',')}`;
  const query = templates.get(key, (slot) => {
    let select = db.selectFrom(resource.table).select(sql.ref(column).as('value')).where(column, '<>', '');
    if (flag !== undefined) select = select.where(queries.notIndexed(flag), '=', 0);
    filters.forEach((filter, index) => {
      select = select.where(filter.column, '=', slot(index));
    });
    return select.groupBy(column).having((eb) => eb.fn.countAll(), '>', 1);
  });
  const rows = (await query.execute(db, filters.map((filter) => filter.value))).rows as { value: unknown }[];
  return new Set(rows.map((row) => String(row.value)));
}
