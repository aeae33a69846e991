// Frozen. The servers' search index keeps only what `q` reads.
//
// SQLite's FTS5 table of 0005 also kept each row's column sizes (a row of its own per server
// in a second table), which only ranking reads, and lists do not rank, while a bulk create
// spent much of its INSERT time writing them (docs/decisions.md, "`q` through a search
// index"). Made again with `columnsize=0`; PostgreSQL's and MariaDB's
// indexes have nothing to drop.
import type { Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

const SEARCHED = ['ip', 'hostname'];

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await ddl.trimSearchIndex(db, 'servers', 'servers_search', SEARCHED);
}

export async function down(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await ddl.dropSearchIndex(db, 'servers', 'servers_search', SEARCHED);
  await ddl.createSearchIndex(db, 'servers', 'servers_search', SEARCHED);
}
