// Frozen. Lists at fleet scale (contract section 15).
//
// A change counter per table in resource_counts, moved by every transaction that changes the
// table (in that transaction), so that a list's ETag is known without running the list.
//
// Lists filter and sort servers by any field they show (contract sections 7 and 15):
// each such column gets an index, so that at a million servers no single filter or sort
// reads the whole table. Each index ends with the id, the sort's tie-break: an equality
// filter then reads its matches already in id order, and a sort by the column is read in
// index order (on SQLite the rowid is in every index anyway; PostgreSQL needs it named).
// ip is the leading column of the (ip, port, live) unique index; the tag link table was
// indexed with the fleet model.
import { sql, type Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

const COLUMNS = ['ip', 'hostname', 'port', 'created_at', 'updated_at', 'ssl', 'ssh', 'is_proxy', 'is_vip', 'is_monitored', 'is_deleted'];
const NULLABLE = ['id_client', 'id_environment'];

// The single-column indexes of 0001, 0002 and 0003 are replaced by these (a prefix of each).
const REPLACED = ['servers_is_monitored_idx', 'servers_is_deleted_idx', 'servers_id_client_idx', 'servers_id_environment_idx'];

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await db.schema.alterTable('resource_counts').addColumn('changes', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  // Created first: MariaDB refuses to drop the index a foreign key uses until another serves it.
  for (const column of COLUMNS) await db.schema.createIndex(`servers_${column}_id_idx`).on('servers').columns([column, 'id']).execute();
  // The references may be NULL, which lists sort first on every backend (see nullsFirst).
  for (const column of NULLABLE) await db.schema.createIndex(`servers_${column}_id_idx`).on('servers').expression(sql`${ddl.nullsFirst(column)}, id`).execute();
  for (const name of REPLACED) await ddl.dropIndex(db, 'servers', name);
  // `q` on servers: a substring of ip or hostname, through an index made for it.
  await ddl.createSearchIndex(db, 'servers', 'servers_search', ['ip', 'hostname']);
}

export async function down(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await ddl.dropSearchIndex(db, 'servers', 'servers_search', ['ip', 'hostname']);
  for (const name of REPLACED) await db.schema.createIndex(name).on('servers').column(name.slice('servers_'.length, -'_idx'.length)).execute();
  for (const column of [...COLUMNS, ...NULLABLE]) await ddl.dropIndex(db, 'servers', `servers_${column}_id_idx`);
  await db.schema.alterTable('resource_counts').dropColumn('changes').execute();
}
