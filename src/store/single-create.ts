// A single create as one statement, where the dialect can (PostgreSQL: an autocommitted
// INSERT … ON CONFLICT DO NOTHING … RETURNING with UPDATEs and an INSERT in its WITH clause,
// DatabaseCapabilities.insertSkipsConflicts and modifyingWith; MariaDB: a block of statements,
// DialectQueries.singleCreate): the entry's row, its count share and its pending change record
// commit together in one round trip, instead of four on PostgreSQL (BEGIN, the insert, the
// count share and record, COMMIT) and five on MariaDB. Taken only by the plain case: no
// reference to check, no link row to write, every column of the entry's row written by the
// service (so that the change record's `after` can be known before the row is stored). Any
// other create, and one whose unique values are taken (no row comes back, nothing is
// written), runs as a transaction as before: that path names the rule (409).
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

  /** Stores the entry of `values` and its change record, committed, and returns the entry;
   * undefined when this create is not of the plain shape, or when its unique values are taken
   * (then nothing was written: the caller runs it as a transaction). */
  async create(resource: CompiledResource, values: Record<string, unknown>, now: string, author: Author, secretsChanged: readonly string[]): Promise<Entry | undefined> {
    for (const [name] of resource.linkedFields) {
      const ids = values[name];
      if (ids !== undefined && !(Array.isArray(ids) && ids.length === 0)) return undefined;
    }
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
    const id = await this.write(resource, columns, { row: rowValues, table: resource.table, total: 1, live: 1, record });
    if (id === undefined) return undefined;
    entry.id = id;
    return entry;
  }

  /** Runs the statement; the new row's id, or undefined when a unique value was taken. */
  private async write(resource: CompiledResource, columns: readonly string[], values: SingleCreateValues): Promise<number | undefined> {
    const { db, queries } = this.context.handle;
    const key = `single create ${resource.table} ${columns.join(',')}`;
    let stored: { id?: unknown } | undefined;
    if (queries.singleCreate !== undefined) {
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
      const query = this.context.templates.get(key, (slot) => this.statement(resource, columns, slot));
      const slots = [values.total, values.live, values.table, record.at, record.action, record.resource, record.actor, record.requestId, record.afterHead, record.afterTail, record.secretsChanged];
      stored = (await query.execute(db, [...slots, ...values.row])).rows[0] as { id?: unknown } | undefined;
    }
    return stored === undefined ? undefined : Number(stored.id);
  }

  /** WITH ins AS (INSERT … ON CONFLICT DO NOTHING RETURNING …), share AS (its count share, if
   * a row was inserted), own AS (the table's own count row, if the share's row is missing),
   * change AS (INSERT INTO change_log_pending SELECT … FROM ins) SELECT id FROM ins. */
  private statement(resource: CompiledResource, columns: readonly string[], slot: (index: number) => any) {
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
    return db
      .with('ins', (q) =>
        q
          .insertInto(resource.table)
          .values(Object.fromEntries(columns.map((column, index) => [column, slot(ROW_SLOT + index)])))
          .onConflict((conflict) => conflict.doNothing())
          .returning('id'),
      )
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
