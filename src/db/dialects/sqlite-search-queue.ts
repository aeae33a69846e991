// The servers' search index (an FTS5 trigram table) written once per transaction instead of
// once per write. FTS5 keeps the terms of the rows written in a transaction in memory and
// writes them out at every savepoint opened after them: each write of a commit group runs in a
// savepoint, and each INSERT or UPDATE with a unique index in a statement savepoint, so every
// write wrote out its own few terms as a new index segment, which later had to be merged. The
// table's triggers now append the rows' old and new values to a plain queue table, and the
// queue is moved into the index with one statement just before the COMMIT, in the order it
// was written: one segment per transaction. A refused write's savepoint rolls back its queue
// rows with everything else; a failed COMMIT, the move with them. This module makes and undoes
// the queues (migrations); the commit group moves them, as the last step of its transaction
// (searchQueueMover, sqlite-commit-group.ts).
import { sql, type Kysely } from 'kysely';

/** What a search index's queue table adds to the index's name. */
export const QUEUE_SUFFIX = '_queue';

/** The queue table of the search index `name`. */
export function queueName(name: string): string {
  return `${name}${QUEUE_SUFFIX}`;
}

function valuesOf(row: 'new' | 'old', columns: readonly string[]): string {
  return columns.map((column) => `${row}.${column}`).join(', ');
}

async function dropTriggers(db: Kysely<any>, name: string): Promise<void> {
  for (const suffix of ['insert', 'delete', 'update']) await sql.raw(`drop trigger ${name}_${suffix}`).execute(db);
}

/** Replaces the triggers of search index `name` (made by createSearchIndex over `columns` of
 * `table`) with triggers that append to its queue; the index itself is unchanged. */
export async function queueSearchWrites(db: Kysely<any>, table: string, name: string, columns: readonly string[]): Promise<void> {
  const list = columns.join(', ');
  const queue = queueName(name);
  // `command` is what the FTS5 table's hidden column of its own name receives: null for a row
  // to index, 'delete' (with the values indexed) for a row to take out.
  await sql.raw(`create table ${queue} (seq integer primary key, command text, row_id integer not null, ${columns.map((column) => `${column} text`).join(', ')})`).execute(db);
  await dropTriggers(db, name);
  const add = (row: 'new' | 'old', command: string) => `insert into ${queue}(command, row_id, ${list}) values (${command}, ${row}.id, ${valuesOf(row, columns)});`;
  await sql.raw(`create trigger ${name}_insert after insert on ${table} begin ${add('new', 'null')} end`).execute(db);
  await sql.raw(`create trigger ${name}_delete after delete on ${table} begin ${add('old', `'delete'`)} end`).execute(db);
  await sql.raw(`create trigger ${name}_update after update of ${list} on ${table} begin ${add('old', `'delete'`)} ${add('new', 'null')} end`).execute(db);
}

/** Undoes queueSearchWrites: what waits in the queue is moved into the index, and the index's
 * triggers write it directly again. */
export async function writeSearchDirectly(db: Kysely<any>, table: string, name: string, columns: readonly string[]): Promise<void> {
  const list = columns.join(', ');
  const queue = queueName(name);
  await sql.raw(moveStatement(name, queue, columns)).execute(db);
  await dropTriggers(db, name);
  await sql.raw(`drop table ${queue}`).execute(db);
  const remove = `insert into ${name}(${name}, rowid, ${list}) values ('delete', old.id, ${valuesOf('old', columns)});`;
  const add = `insert into ${name}(rowid, ${list}) values (new.id, ${valuesOf('new', columns)});`;
  await sql.raw(`create trigger ${name}_insert after insert on ${table} begin ${add} end`).execute(db);
  await sql.raw(`create trigger ${name}_delete after delete on ${table} begin ${remove} end`).execute(db);
  await sql.raw(`create trigger ${name}_update after update of ${list} on ${table} begin ${remove} ${add} end`).execute(db);
}

/** The statement that moves the queue into the index, in the order it was written. */
export function moveStatement(name: string, queue: string, columns: readonly string[]): string {
  const list = columns.join(', ');
  return `insert into ${name}(${name}, rowid, ${list}) select command, row_id, ${list} from ${queue} order by seq`;
}
