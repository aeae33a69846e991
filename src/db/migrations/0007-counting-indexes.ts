// Frozen. Filtered totals read an index alone (docs/decisions.md, "Totals").
//
// A filtered list counts its matches (up to LIST_EXACT_TOTAL_MAX + 1), and each match must
// be checked "not deleted". With the (column, id) indexes of 0005, that check read each
// match's row: rows all over the table for a filter such as port or id_client (on PostgreSQL
// a bitmap heap scan; the measurements are in that section of docs/decisions.md).
// The same indexes with is_deleted after the id hold everything the count reads. After the
// id, it changes no order: the indexes still serve every sort and cursor page they served.
// Made under new names before the old ones are dropped (MariaDB refuses to drop the index a
// foreign key uses until another serves it).
import { sql, type Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

const COLUMNS = ['ip', 'hostname', 'port', 'created_at', 'updated_at', 'ssl', 'ssh', 'is_proxy', 'is_vip', 'is_monitored'];
const NULLABLE = ['id_client', 'id_environment'];

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  for (const column of COLUMNS) await db.schema.createIndex(`servers_${column}_count_idx`).on('servers').columns([column, 'id', 'is_deleted']).execute();
  for (const column of NULLABLE) await db.schema.createIndex(`servers_${column}_count_idx`).on('servers').expression(sql`${ddl.nullsFirst(column)}, id, is_deleted`).execute();
  for (const column of [...COLUMNS, ...NULLABLE]) await ddl.dropIndex(db, 'servers', `servers_${column}_id_idx`);
}

export async function down(db: Kysely<any>, ddl: Ddl): Promise<void> {
  for (const column of COLUMNS) await db.schema.createIndex(`servers_${column}_id_idx`).on('servers').columns([column, 'id']).execute();
  for (const column of NULLABLE) await db.schema.createIndex(`servers_${column}_id_idx`).on('servers').expression(sql`${ddl.nullsFirst(column)}, id`).execute();
  for (const column of [...COLUMNS, ...NULLABLE]) await ddl.dropIndex(db, 'servers', `servers_${column}_count_idx`);
}
