// A single create as one statement, where the dialect can (PostgreSQL: an autocommitted
// INSERT … ON CONFLICT DO NOTHING … RETURNING with UPDATEs and an INSERT in its WITH clause,
// DatabaseCapabilities.insertSkipsConflicts and modifyingWith; MariaDB: a block of statements,
// DialectQueries.singleCreate): the entry's row, its count share and its pending change record
// commit together in one round trip, instead of four on PostgreSQL (BEGIN, the insert, the
// count share and record, COMMIT) and five on MariaDB. Taken when every column of the entry's
// row is written by the service (so that the change record's `after` can be known before the
// row is stored), and on MariaDB only without references and link rows. On PostgreSQL the
// statement also checks the entries pointed at (the row is inserted only if each is there,
// and live where it must be) and writes the link rows (a set's ids unnested), so that a
// server created with tags is one round trip too, instead of seven. Any other create, and one
// whose unique values are taken or whose references fail (no row comes back, nothing is
// written), runs as a transaction as before: that path names the rule (409) or the reference
// (422).
//
// The change record is the one the transaction would write: its `after` is the entry as
// responses show it, serialized here with a stand-in id, and the database puts the row's id
// in its place. It goes to change_log_pending like every other record on this backend, and the
// change sequencer numbers it after the statement returns (committed by then), so the change
// feed's proof (change-sequencer.ts) holds as it is.
//
// The statement gives back the new row's id only, and the answer is the record's entry with
// that id: every shown column was written from the values here, so the row holds them (a
// column that changed a value on the way in would be a defect of its type, and the tests
// compare the answer with a later GET for that). Reading the row back cost the database its
// columns on the way out, and the service their parsing and a second decoding and
// serialization of the entry.
import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import type { SingleCreateStatement, SingleCreateValues } from '../db/connect.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { Author } from './change-log.js';
import { PENDING_COLUMNS } from '../db/database-schema.js';
import { decodeEntry, encodeValues, type Entry, type Row } from './entry-rows.js';
import { COUNT_SHARDS, countRowUpdate, countShareUpdate } from './resource-counts.js';
import type { StoreContext } from './store-context.js';

/** The id the entry is serialized with before it has one: no value of a real entry is this
 * number, and the record is written this way only if it occurs once in the text. */
const STAND_IN_ID = Number.MAX_SAFE_INTEGER;
const STAND_IN_TEXT = `"id":${STAND_IN_ID}`;

/** What the statement's slots hold, in order: 0-2 the count share's (countShareUpdate), then
 * the record's, then the row's columns. */
const RECORD_SLOTS = ['at', 'action', 'resource', 'actor', 'request_id', 'after_head', 'after_tail', 'secrets_changed_json'] as const;
const ROW_SLOT = 3 + RECORD_SLOTS.length;

/** An entry the create points at (a reference check of the write's plan). */
export interface PointedAt {
  readonly resource: CompiledResource;
  readonly id: number;
  /** A soft-deleted entry does not do. */
  readonly mustBeLive: boolean;
}

/** The ids of a table pointed at, of one kind of check. */
interface ReferenceGroup {
  readonly resource: CompiledResource;
  readonly mustBeLive: boolean;
  readonly ids: number[];
}

/** What the statement writes and checks beyond the row: the link sets with ids (field name and
 * its ids), the groups of references. */
interface Extras {
  readonly links: readonly (readonly [name: string, ids: readonly number[]])[];
  readonly references: readonly ReferenceGroup[];
}

export class SingleCreate {
  /** The dialect's statements (DialectQueries.singleCreate), by table and columns. */
  private readonly compounds = new Map<string, SingleCreateStatement>();

  constructor(
    private readonly context: StoreContext,
    /** The count share of the connection (DialectQueries.countShard). */
    private readonly countShard: RawBuilder<number>,
  ) {}

  /** Whether a dialect can: an insert that skips conflicts, a WITH clause that writes, and
   * change records numbered after the commit; and shares of the counts. */
  static possible(context: StoreContext, countShard: RawBuilder<number> | undefined): countShard is RawBuilder<number> {
    const { capabilities, queries } = context.handle;
    const oneStatement = (capabilities.insertSkipsConflicts && capabilities.modifyingWith) || queries.singleCreate !== undefined;
    return oneStatement && capabilities.numbersChangesAfterCommit && countShard !== undefined;
  }

  /** Whether creates that point at other entries or carry sets can be done so (the WITH
   * clause checks them and writes the link rows; the compound statement cannot). */
  get checksReferences(): boolean {
    return this.context.handle.queries.singleCreate === undefined;
  }

  /** Stores the entry of `values` and its change record, committed, and returns the entry;
   * undefined when this create is not of the plain shape, or when its unique values are taken
   * (then nothing was written: the caller runs it as a transaction). */
  async create(
    resource: CompiledResource,
    values: Record<string, unknown>,
    now: string,
    author: Author,
    secretsChanged: readonly string[],
    pointedAt: readonly PointedAt[],
  ): Promise<Entry | undefined> {
    const withClause = this.checksReferences;
    const links: [string, readonly number[]][] = [];
    for (const [name] of resource.linkedFields) {
      const ids = values[name];
      if (ids === undefined || (Array.isArray(ids) && ids.length === 0)) continue;
      if (!withClause || !Array.isArray(ids)) return undefined;
      links.push([name, ids as number[]]);
    }
    if (pointedAt.length > 0 && !withClause) return undefined;
    const references = referenceGroups(pointedAt);
    const row: Row = encodeValues(resource, values, this.context.secrets);
    row.created_at = now;
    row.updated_at = now;
    if (resource.deletion.mode === 'soft') row[resource.deletion.liveColumn] = 1;
    // Every shown column written by the service: nothing left to a database default.
    for (const [name, field] of resource.shownFields) {
      if (name !== 'id' && field.link === undefined && !(field.column in row)) return undefined;
    }
    const columns = Object.keys(row);
    const rowValues = Object.values(row);
    row.id = STAND_IN_ID;
    const entry = withLinks(resource, decodeEntry(resource, row), values);
    const text = JSON.stringify(entry);
    const digits = String(STAND_IN_ID);
    const found = text.indexOf(STAND_IN_TEXT);
    const at = found + STAND_IN_TEXT.length - digits.length;
    if (found < 0 || text.indexOf(digits) !== at || text.lastIndexOf(digits) !== at) return undefined;
    const head = text.slice(0, at);
    const tail = text.slice(at + digits.length);

    const record = { at: new Date().toISOString(), action: 'create', resource: resource.name, actor: author.actor, requestId: author.requestId, afterHead: head, afterTail: tail, secretsChanged: JSON.stringify(secretsChanged) };
    const id = await this.write(resource, columns, { row: rowValues, table: resource.table, total: 1, live: 1, record }, { links, references });
    if (id === undefined) return undefined;
    entry.id = id;
    return entry;
  }

  /** Runs the statement; the new row's id, or undefined when a unique value was taken or a
   * reference failed (nothing written then). */
  private async write(resource: CompiledResource, columns: readonly string[], values: SingleCreateValues, extras: Extras): Promise<number | undefined> {
    const { db, queries, failureOf } = this.context.handle;
    let stored: { id?: unknown } | undefined;
    if (queries.singleCreate !== undefined) {
      const key = `single create ${resource.table} ${columns.join(',')}`;
      let statement = this.compounds.get(key);
      if (statement === undefined) {
        statement = queries.singleCreate(resource.table, columns, COUNT_SHARDS);
        this.compounds.set(key, statement);
      }
      const { rows } = await db.executeQuery(CompiledQuery.raw(statement.sql, statement.parameters(values)));
      // A block answers its SELECT's rows, then its own result; nothing when it ended early.
      const first = rows[0] as unknown;
      stored = Array.isArray(first) ? first[0] : undefined;
    } else {
      const { record } = values;
      const links = extras.links.map(([name]) => name).join(',');
      const references = extras.references.map((group) => `${group.resource.table}${group.mustBeLive ? '!' : ''}`).join(',');
      const key = `single create ${resource.table} ${columns.join(',')} links ${links} references ${references}`;
      const query = this.context.templates.get(key, (slot) => this.statement(resource, columns, extras, slot));
      const slots: unknown[] = [values.total, values.live, values.table, record.at, record.action, record.resource, record.actor, record.requestId, record.afterHead, record.afterTail, record.secretsChanged, ...values.row];
      for (const [, ids] of extras.links) slots.push(ids);
      for (const group of extras.references) slots.push(group.ids, group.ids.length);
      try {
        stored = (await query.execute(db, slots)).rows[0] as { id?: unknown } | undefined;
      } catch (error) {
        // An entry pointed at was deleted after the check (a foreign key of the row or of a
        // link row): the transaction names it.
        if ((extras.links.length > 0 || extras.references.length > 0) && failureOf(error) === 'foreign-key') return undefined;
        throw error;
      }
    }
    return stored === undefined ? undefined : Number(stored.id);
  }

  /** WITH ins AS (INSERT … ON CONFLICT DO NOTHING RETURNING …), share AS (its count share, if
   * a row was inserted), own AS (the table's own count row, if the share's row is missing),
   * change AS (INSERT INTO change_log_pending SELECT … FROM ins) SELECT id FROM ins. */
  private statement(resource: CompiledResource, columns: readonly string[], extras: Extras, slot: (index: number) => any) {
    const db = this.context.handle.db as Kysely<any>;
    const inserted = (eb: any) => eb.exists(eb.selectFrom('ins').select(sql.lit(1).as('one')));
    const recordSlot = (name: (typeof RECORD_SLOTS)[number]) => slot(3 + RECORD_SLOTS.indexOf(name));
    const text = (name: (typeof RECORD_SLOTS)[number]) => sql`cast(${recordSlot(name)} as text)`;
    const recordValues: Record<(typeof PENDING_COLUMNS)[number], unknown> = {
      at: text('at'),
      action: text('action'),
      resource: text('resource'),
      entry_id: sql.ref('ins.id'),
      actor: text('actor'),
      request_id: text('request_id'),
      before_json: sql`cast(null as text)`,
      after_json: sql`${text('after_head')} || cast(${sql.ref('ins.id')} as text) || ${text('after_tail')}`,
      secrets_changed_json: text('secrets_changed_json'),
    };
    const rowSlots = columns.map((_, index) => slot(ROW_SLOT + index));
    let next = ROW_SLOT + columns.length;
    const linkSlots = extras.links.map(() => slot(next++));
    // Each group: as many of its ids found (and live where they must be) as it has.
    const checks = extras.references.map((group) => {
      const ids = slot(next++);
      const count = slot(next++);
      const { deletion } = group.resource;
      const live = group.mustBeLive && deletion.mode === 'soft' ? sql` and ${sql.ref(deletion.liveColumn)} is not null` : sql``;
      return sql`(select count(*) from ${sql.table(group.resource.table)} where id = any(cast(${ids} as integer[]))${live}) = ${count}`;
    });
    let statement = db.with('ins', (q) => {
      const insert = q.insertInto(resource.table);
      const filled =
        checks.length === 0
          ? insert.values(Object.fromEntries(columns.map((column, index) => [column, rowSlots[index]])))
          : insert.columns(columns as any).expression(sql`select ${sql.join(rowSlots)} where ${sql.join(checks, sql` and `)}`);
      return filled.onConflict((conflict) => conflict.doNothing()).returning('id');
    });
    extras.links.forEach(([name], index) => {
      const link = resource.fields[name]!.link!;
      const flag = link.ownerDeletedColumn;
      // A new entry is live: its link rows copy that (link-rows.ts).
      const target = [link.ownerColumn, link.targetColumn, ...(flag === undefined ? [] : [flag])];
      statement = statement.with(`link_${index}`, (q) =>
        (q.insertInto(link.table) as any)
          .columns(target)
          .expression(sql`select ${sql.ref('ins.id')}, t.id${flag === undefined ? sql`` : sql`, 0`} from ins cross join unnest(cast(${linkSlots[index]} as integer[])) as t(id)`),
      ) as any;
    });
    return statement
      .with('share', (q) => (countShareUpdate(q as any, slot, this.countShard) as any).where(inserted).returning('shard'))
      .with('own', (q) =>
        (countRowUpdate(q as any, slot) as any).where(inserted).where((eb: any) => eb.not(eb.exists(eb.selectFrom('share').select(sql.lit(1).as('one'))))),
      )
      .with('change', (q) =>
        q
          .insertInto('change_log_pending')
          .columns([...PENDING_COLUMNS])
          .expression((eb: any) => eb.selectFrom('ins').select(PENDING_COLUMNS.map((column) => (recordValues[column] as RawBuilder<unknown>).as(column)))),
      )
      .selectFrom('ins')
      .select('id');
  }
}

/** The entry with its sets as the write stores them: none of its links is written here. */
function withLinks(resource: CompiledResource, entry: Entry, values: Record<string, unknown>): Entry {
  for (const [name] of resource.linkedFields) entry[name] = (values[name] as number[] | undefined) ?? [];
  return entry;
}

/** The references grouped by table and check, each id once. */
function referenceGroups(pointedAt: readonly PointedAt[]): ReferenceGroup[] {
  const groups: ReferenceGroup[] = [];
  for (const { resource, id, mustBeLive } of pointedAt) {
    let group = groups.find((candidate) => candidate.resource === resource && candidate.mustBeLive === mustBeLive);
    if (group === undefined) groups.push((group = { resource, mustBeLive, ids: [] }));
    if (!group.ids.includes(id)) group.ids.push(id);
  }
  return groups;
}
