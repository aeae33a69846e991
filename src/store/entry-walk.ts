// Reading every entry that matches a list query, a batch at a time, for answers that are
// streamed rather than paged (contract section 17: service discovery and inventories). Each
// batch is one page statement of the list machinery (list-statements.ts), sorted by id and
// continued after the last id read (keyset, never offset): a batch costs the same at the end
// of a million entries as at the start, and only one batch is ever held in memory.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { EntryDatabase } from '../db/database-schema.js';
import type { DatabaseCapabilities, DialectQueries } from '../db/connect.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import { decodeEntry, type EntrySelections, type Entry, type Row } from './entry-rows.js';
import { listTotal, type ListQuery } from './list-query.js';
import { listStatements } from './list-statements.js';
import { QueryTemplates, type ReadRowsNow } from './query-templates.js';

export interface WalkSources {
  readonly db: EntryDatabase;
  readonly templates: QueryTemplates;
  readonly selections: EntrySelections;
  readonly capabilities: DatabaseCapabilities;
  readonly queries: DialectQueries;
  /** DatabaseHandle.readRowsNow: a batch as arrays, at once, where the database can. */
  readonly readRowsNow?: ReadRowsNow | undefined;
}

// Walks that read only some fields (the monitoring answers need ten of a server's thirty)
// compile their statements apart: a template's key names its clauses, not its columns.
// Compiled statements are SQL, so they stay the store's memo rather than the compiled
// resource's (the registry is below the database layer).
const narrowTemplates = new WeakMap<QueryTemplates, Map<string, QueryTemplates>>();

function templatesFor(templates: QueryTemplates, key: string): QueryTemplates {
  let byFields = narrowTemplates.get(templates);
  if (byFields === undefined) {
    byFields = new Map();
    narrowTemplates.set(templates, byFields);
  }
  let narrow = byFields.get(key);
  if (narrow === undefined) {
    narrow = new QueryTemplates();
    byFields.set(key, narrow);
  }
  return narrow;
}

/** The rows `list` matches (its sort, limit, offset and cursor are ignored), ascending by id,
 * `batch` at most per statement: each as the driver gives it (an object), or as the array of
 * its values where `arrays` is set and the database reads them at once (SQLite), which saves
 * building an object per row (a third of the walk at 100,000 servers). The id comes first. */
async function* walkRows(sources: WalkSources, templates: QueryTemplates, selections: EntrySelections, resource: CompiledResource, list: ListQuery, batch: number, arrays: boolean): AsyncGenerator<Row[] | unknown[][]> {
  const { db, capabilities, queries } = sources;
  let after: number | undefined;
  for (;;) {
    const query: ListQuery = { ...list, sort: [{ column: 'id', descending: false, nullable: false }], limit: batch, offset: 0, ...(after === undefined ? { after: undefined } : { after: [after] }) };
    // No count is run: only the page statement, which asks for one row more than `batch`.
    const statements = listStatements(db, templates, selections, resource, query, listTotal(resource, query), 0, capabilities, queries);
    const values = arrays ? statements.page.rowsNow(sources.readRowsNow, statements.pageValues) : undefined;
    const rows: Row[] | unknown[][] = values ?? ((await statements.page.execute(db, statements.pageValues)).rows as Row[]);
    const more = rows.length > batch;
    if (more) rows.pop();
    if (rows.length > 0) yield rows;
    if (!more) return;
    const last = rows[rows.length - 1]!;
    after = Number(Array.isArray(last) ? last[0] : last.id);
  }
}

/** The entries `list` matches (its sort, limit, offset and cursor are ignored), ascending by
 * id, `batch` at most per statement. */
export async function* walkEntries(sources: WalkSources, resource: CompiledResource, list: ListQuery, batch: number): AsyncGenerator<Entry[]> {
  for await (const rows of walkRows(sources, sources.templates, sources.selections, resource, list, batch, false)) yield (rows as Row[]).map((row) => decodeEntry(resource, row));
}

/** The same, reading only the id and the shown `fields` (a set kept in a link table as its
 * aggregate): each entry as an array, `[id, ...fields]`, the values in their column form, as
 * the database gives them (the caller decodes what it uses, once per distinct value if it
 * likes). */
export async function* walkValues(sources: WalkSources, resource: CompiledResource, list: ListQuery, batch: number, fields: readonly string[]): AsyncGenerator<unknown[][]> {
  const shown = resource.shownFields;
  const all = sources.selections.all(resource);
  const picked = fields.map((name) => {
    const index = shown.findIndex(([shownName]) => shownName === name);
    if (index < 0) throw new Error(`walkValues: ${resource.name} shows no field ${name}`);
    return { selection: all[index]!, key: shown[index]![1].column };
  });
  // A column selected by name comes back under its own name, as an aggregate under its alias:
  // the field's column either way.
  const selected = [`${resource.table}.id`, ...picked.map(({ selection }) => (typeof selection === 'string' ? `${resource.table}.${selection}` : selection))];
  const selections = { all: () => selected } as unknown as EntrySelections;
  const keys = ['id', ...picked.map(({ key }) => key)];
  const width = keys.length;
  const templates = templatesFor(sources.templates, fields.join(','));
  for await (const rows of walkRows(sources, templates, selections, resource, list, batch, true)) {
    if (rows.length === 0 || Array.isArray(rows[0])) {
      yield rows as unknown[][];
      continue;
    }
    const values: unknown[][] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as Row;
      const entry: unknown[] = new Array(width);
      for (let k = 0; k < width; k++) entry[k] = row[keys[k]!];
      values[i] = entry;
    }
    yield values;
  }
}

/** The values of `column` that more than one live entry with the `filters` holds (empty text
 * left out): one grouped statement, whose answer is as long as the duplicates, not the entries. */
export async function sharedValues(sources: WalkSources, resource: CompiledResource, filters: ListQuery['filters'], column: string): Promise<Set<string>> {
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

/** The values of `column` that read `<first>_<second>` of another live entry with the
 * `filters`: a server's hostname that is another server's `ip_port`, the name the Ansible
 * inventory gives a server without a hostname of its own. Only a value holding a `_` can be
 * one: those are read first (one pass over the index that starts with `column`, 0007's; in a
 * fleet of DNS names, none), then the entries they would name, by `first` (its index), a
 * batch at a time. A join of every entry's `first_second` against `column` took 70-110 ms at
 * 100,000 servers on SQLite, for an answer that is nearly always empty; this, 16-27 ms. */
export async function valuesNamingOthers(sources: WalkSources, resource: CompiledResource, filters: ListQuery['filters'], column: string, first: string, second: string): Promise<Set<string>> {
  const { db, templates, queries } = sources;
  const flag = resource.deletion.mode === 'soft' ? resource.fields[resource.deletion.flagField]?.column : undefined;
  // Live entries with the filters' values (slots in the template, values in the batches).
  const live = (values: (index: number) => unknown): Expression<SqlBool>[] => [
    ...(flag === undefined ? [] : [sql<SqlBool>`${queries.notIndexed(flag)} = ${0}`]),
    ...filters.map((filter, index) => sql<SqlBool>`${queries.notIndexed(filter.column)} = ${values(index)}`),
  ];
  const key = `naming ${resource.table} ${column} ${filters.map((filter) => filter.column).join(',')}`;
  const candidates = templates.get(key, (slot) =>
    db
      .selectFrom(resource.table)
      .select(sql.ref(column).as('value'))
      .distinct()
      .where((eb) => eb.and([sql<SqlBool>`${sql.ref(column)} like ${sql.lit('%!_%')} escape ${sql.lit('!')}`, ...live(slot)])),
  );
  // Each candidate as the entry it would name: `first` before its last `_`, `second` after.
  const named = new Map<string, string>();
  for (const row of (await candidates.execute(db, filters.map((filter) => filter.value))).rows as { value: unknown }[]) {
    const value = String(row.value);
    const cut = value.lastIndexOf('_');
    if (/^\d+$/.test(value.slice(cut + 1))) named.set(value, value.slice(0, cut));
  }
  const taken = new Set<string>();
  const firsts = [...new Set(named.values())];
  for (let start = 0; start < firsts.length; start += NAMING_BATCH) {
    const batch = firsts.slice(start, start + NAMING_BATCH);
    const select = db
      .selectFrom(resource.table)
      .select([sql.ref(first).as('first'), sql.ref(second).as('second'), sql.ref(column).as('value')])
      .where((eb) => eb.and([eb(sql.ref(first), 'in', batch), ...live((index) => filters[index]!.value)]));
    for (const row of (await select.execute()) as { first: unknown; second: unknown; value: unknown }[]) {
      const text = `${String(row.first)}_${String(row.second)}`;
      // An entry whose own value is that text is one of its holders, not another entry.
      if (named.has(text) && String(row.value) !== text) taken.add(text);
    }
  }
  return taken;
}

/** Entries looked up per statement by valuesNamingOthers. */
const NAMING_BATCH = 500;
