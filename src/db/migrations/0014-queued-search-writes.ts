// Frozen. The servers' search index written once per transaction (SQLite): its triggers append
// to a queue that each transaction moves into the index before its COMMIT, instead of FTS5
// writing a segment of its own at every write's savepoint (docs/decisions.md, "The search
// index is written once per transaction"). PostgreSQL's and MariaDB's indexes are unchanged.
import type { Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

const SEARCHED = ['ip', 'hostname'];

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await ddl.queueSearchIndexWrites(db, 'servers', 'servers_search', SEARCHED);
}

export async function down(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await ddl.writeSearchIndexDirectly(db, 'servers', 'servers_search', SEARCHED);
}
