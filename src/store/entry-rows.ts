// Entries to rows and back, driven by the registry: columns come from the field definitions,
// values pass through each field type's column form, and secrets are sealed on the way in.
// A field kept in a link table is selected as one aggregate of its ids, so that an entry is
// still read in one statement; written, each set is rows of its link table, one per pair
// (rowChange below; the store runs the statements). And what of an entry a write stores: the
// values that differ from its row (changedValues).
//
// Link rows: a link table that copies its owner's soft-delete flag
// (LinkTable.ownerDeletedColumn) gets the owner's state on every row written, and again when
// the owner is deleted or restored, in the same transaction: a list filtered by the set trusts
// that copy to skip and count deleted owners without reading them, so no write may leave it
// behind.
//
// Reference states: what the entries a write points at are (live, deleted or missing), read
// in one statement for all of them: one SELECT per table pointed at, joined by UNION ALL, each
// with the ids wanted. A server with three tags, a client and an environment was five round
// trips of its transaction, one per id; on a database server each is a socket write and a
// wake-up of both sides.
import { sql, type AliasedRawBuilder } from 'kysely';
import type { DialectQueries } from '../db/connect.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { LinkTable, ResourceDefinition } from '../registry/resource-definition.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { EntryDatabase } from '../db/database-schema.js';
import type { QueryTemplates } from './query-templates.js';
import { rowBatches, slottedRows } from './row-batches.js';

/** An entry as the API shows it: id, the readable fields, then the timestamps. */
export type Entry = Record<string, unknown> & { id: number };

export type Row = Record<string, unknown>;

/** What a sealed column's secret is bound to, so that it cannot be moved to another column. */
export function secretContext(resource: ResourceDefinition, column: string): string {
  return `${resource.table}.${column}`;
}

export type Selection = string | AliasedRawBuilder<unknown, string>;

/** What a SELECT of the entries of a resource names, in response order: its columns, and for
 * each set kept in a link table, the aggregate of its ids. The aggregate is the dialect's SQL
 * (DialectQueries.joinedIds), which the registry below the database layer cannot build: so
 * the list is made here, once per resource and store, and not in the compiled resource. */
export class EntrySelections {
  private readonly byResource = new WeakMap<CompiledResource, Selection[]>();

  constructor(private readonly queries: DialectQueries) {}

  /** Everything a response shows. */
  all(resource: CompiledResource): Selection[] {
    let all = this.byResource.get(resource);
    if (all === undefined) {
      all = resource.shownFields.map(([, field]) => (field.link === undefined ? field.column : this.linkedIds(resource, field.link, field.column)));
      this.byResource.set(resource, all);
    }
    return all;
  }

  private linkedIds(resource: ResourceDefinition, link: LinkTable, alias: string): AliasedRawBuilder<unknown, string> {
    const ids = this.queries.joinedIds(sql.ref(`l.${link.targetColumn}`));
    return sql`(select ${ids} from ${sql.table(link.table)} as l where ${sql.ref(`l.${link.ownerColumn}`)} = ${sql.ref(`${resource.table}.id`)})`.as(alias);
  }
}

export function decodeEntry(resource: CompiledResource, row: Row): Entry {
  const entry: Record<string, unknown> = {};
  for (const [name, field] of resource.shownFields) entry[name] = field.type.fromColumn(row[field.column]);
  return entry as Entry;
}

/** The same from a row's values in the order EntrySelections.all selects them, which is the
 * order of the resource's shownFields. */
export function decodeEntryValues(resource: CompiledResource, values: readonly unknown[]): Entry {
  const entry: Record<string, unknown> = {};
  const fields = resource.shownFields;
  for (let i = 0; i < fields.length; i++) {
    const [name, field] = fields[i]!;
    entry[name] = field.type.fromColumn(values[i]);
  }
  return entry as Entry;
}

/** Field values (API names, canonical values) to columns; secrets are sealed here. */
export function encodeValues(resource: ResourceDefinition, values: Record<string, unknown>, secrets: SecretBox): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name];
    if (field === undefined || field.link !== undefined) continue;
    row[field.column] = field.writeOnly ? secrets.seal(String(value), secretContext(resource, field.column)) : field.type.toColumn(value);
  }
  return row;
}

/** Whether a stored value and a sent one are the same (a set of ids: the same ids in order). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => item === b[index]);
  return a === b;
}

/** What a write stores of `candidate` (the entry as it will be): every field, but a kept
 * secret is not rewritten and server-managed fields are set only when the entry is created;
 * undefined for an update that would change no field (a write that changes nothing writes
 * nothing). `sent`: the values the request sets. */
export async function changedValues(
  resource: CompiledResource,
  action: 'create' | 'update',
  sent: Readonly<Record<string, unknown>>,
  candidate: Record<string, unknown>,
  existing: Entry | undefined,
  /** A stored secret in plain, which only the transaction can open: a secret sent again is compared with it. */
  storedSecret: (name: string) => Promise<string | undefined>,
): Promise<Record<string, unknown> | undefined> {
  const values: Record<string, unknown> = {};
  let changes = existing === undefined;
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.writeOnly && !(name in sent)) continue;
    if (field.readOnly && action !== 'create') continue;
    if (!(name in candidate)) continue;
    values[name] = candidate[name];
    if (changes || existing === undefined) continue;
    const stored = field.writeOnly ? await storedSecret(name) : existing[name];
    if (!sameValue(stored, candidate[name])) changes = true;
  }
  return changes ? values : undefined;
}

/** The link rows of one set that a write changes: the set as it will be, the ids it gains
 * and loses. */
export interface LinkRows {
  readonly name: string;
  readonly link: LinkTable;
  readonly ids: readonly number[];
  readonly added: readonly number[];
  readonly removed: readonly number[];
}

/** What writing `values` over `existing` (undefined: a new entry) stores: the columns of the
 * entry's own row, and the link rows of its sets (unchanged sets are left alone), with the
 * owner's soft-delete flag they copy (a deleted owner may still be changed). */
export interface RowChange {
  readonly row: Row;
  readonly links: readonly LinkRows[];
  readonly ownerDeleted: 0 | 1;
}

/** What a write stores (changedValues' values) and how (RowChange). */
export interface EntryChange extends RowChange {
  readonly values: Record<string, unknown>;
}

export function rowChange(resource: CompiledResource, values: Record<string, unknown>, existing: Entry | undefined, secrets: SecretBox): EntryChange {
  const links: LinkRows[] = [];
  for (const [name, link] of resource.linkedFields) {
    const previous = (existing?.[name] as number[] | undefined) ?? [];
    const ids = (values[name] as number[] | undefined) ?? previous;
    links.push({ name, link, ids, removed: previous.filter((id) => !ids.includes(id)), added: ids.filter((id) => !previous.includes(id)) });
  }
  // A new entry is stored live.
  const owner = existing === undefined ? undefined : { ...existing, ...values };
  const ownerDeleted = resource.deletion.mode === 'soft' && owner?.[resource.deletion.flagField] === 1 ? 1 : 0;
  return { values, row: encodeValues(resource, values, secrets), links, ownerDeleted };
}

/** The links of new entries (entries[i] made of valuesList[i]), a batch of rows per
 * statement (see row-batches.ts), shown in the entries as a single write shows them. */
export async function writeNewLinks(
  db: EntryDatabase,
  templates: QueryTemplates,
  resource: CompiledResource,
  entries: readonly Entry[],
  valuesList: readonly Record<string, unknown>[],
): Promise<void> {
  for (const [name, link] of resource.linkedFields) {
    const flagged = link.ownerDeletedColumn;
    const columns = flagged === undefined ? [link.ownerColumn, link.targetColumn] : [link.ownerColumn, link.targetColumn, flagged];
    const rows: unknown[][] = [];
    entries.forEach((entry, index) => {
      const ids = (valuesList[index]![name] as number[] | undefined) ?? [];
      entry[name] = ids;
      const deleted = resource.deletion.mode === 'soft' && entry[resource.deletion.flagField] === 1 ? 1 : 0;
      for (const id of ids) rows.push(flagged === undefined ? [entry.id, id] : [entry.id, id, deleted]);
    });
    for (const batch of rowBatches(rows)) {
      const query = templates.get(`links ${link.table} x${batch.length}`, (slot) =>
        db.insertInto(link.table).values(slottedRows(batch.length, columns, slot)),
      );
      await query.execute(db, batch.flat());
    }
  }
}

/** Copies an owner's new soft-delete flag (1 deleted, 0 restored) into its links. */
export async function markLinkOwner(db: EntryDatabase, templates: QueryTemplates, resource: CompiledResource, id: number, deleted: 0 | 1): Promise<void> {
  for (const [, link] of resource.linkedFields) {
    const column = link.ownerDeletedColumn;
    if (column === undefined) continue;
    const query = templates.get(`mark owner ${link.table}`, (slot) => db.updateTable(link.table).set({ [column]: slot(0) }).where(link.ownerColumn, '=', slot(1)));
    await query.execute(db, [deleted, id]);
  }
}

export type ReferenceState = 'live' | 'deleted' | 'missing';

/** The key of an entry's state in a transaction's known states. */
function referenceKey(resource: CompiledResource, id: number): string {
  return `${resource.table}/${id}`;
}

/** What the entries `references` point at are, in their order: each looked up once per
 * transaction (`known`, its states so far: the entries of a bulk write often point at the same
 * few, one tag, one client), and those not yet known in one statement. */
export async function referenceStates(
  db: EntryDatabase,
  templates: QueryTemplates,
  references: readonly { readonly resource: CompiledResource; readonly id: number }[],
  known: Map<string, ReferenceState>,
): Promise<ReferenceState[]> {
  const wanted = new Map<CompiledResource, number[]>();
  for (const { resource, id } of references) {
    if (known.has(referenceKey(resource, id))) continue;
    const ids = wanted.get(resource);
    if (ids === undefined) wanted.set(resource, [id]);
    else if (!ids.includes(id)) ids.push(id);
  }
  if (wanted.size > 0) await lookUpReferenceStates(db, templates, wanted, known);
  return references.map(({ resource, id }) => known.get(referenceKey(resource, id))!);
}

/** Looks up the entries of `wanted` (ids by resource, each once) and puts their states in
 * `states` under referenceKey. */
async function lookUpReferenceStates(
  db: EntryDatabase,
  templates: QueryTemplates,
  wanted: ReadonlyMap<CompiledResource, readonly number[]>,
  states: Map<string, ReferenceState>,
): Promise<void> {
  const groups = [...wanted];
  // A template per tables and numbers of ids: a write points at few of either.
  const key = `references ${groups.map(([resource, ids]) => `${resource.table}:${ids.length}`).join(' ')}`;
  const query = templates.get(key, (slot) => {
    let next = 0;
    const selects = groups.map(([resource, ids], index) => {
      // A hard-deleted entry is gone: any row found is live.
      const live = resource.deletion.mode === 'soft' ? sql.ref(resource.deletion.liveColumn) : sql.lit(1);
      return (db as any)
        .selectFrom(resource.table)
        .select([sql.lit(index).as('target'), 'id', live.as('live')])
        .where(
          'id',
          'in',
          ids.map(() => slot(next++)),
        );
    });
    return selects.slice(1).reduce((all, select) => all.unionAll(select), selects[0]);
  });
  const { rows } = await query.execute(db, groups.flatMap(([, ids]) => ids));
  for (const [resource, ids] of groups) for (const id of ids) states.set(referenceKey(resource, id), 'missing');
  for (const row of rows as { target: unknown; id: unknown; live: unknown }[]) {
    const [resource] = groups[Number(row.target)]!;
    states.set(referenceKey(resource, Number(row.id)), row.live === null ? 'deleted' : 'live');
  }
}
