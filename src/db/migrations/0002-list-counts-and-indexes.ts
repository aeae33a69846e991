// Frozen. Keeps the number of entries of each table, so that the `total` of an unfiltered
// list is one row read instead of a count over the whole table (a fleet may have a
// million servers), and indexes the server fields dashboards filter by.
import { sql, type Kysely } from 'kysely';

const TABLES = ['tags', 'clients', 'environments', 'aliases', 'storage_areas', 'servers', 'ssh_keys'];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('resource_counts')
    .addColumn('table_name', 'varchar(64)', (c) => c.primaryKey())
    // Every entry, and those not soft-deleted (the same for tables without soft delete).
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('live', 'integer', (c) => c.notNull())
    .execute();
  for (const table of TABLES) {
    const live = table === 'servers' ? sql`(select count(*) from servers where is_deleted = 0)` : sql`(select count(*) from ${sql.table(table)})`;
    await sql`insert into resource_counts (table_name, total, live)
              values (${table}, (select count(*) from ${sql.table(table)}), ${live})`.execute(db);
  }
  // ip, dns and (ip, port) are already the leading columns of the unique indexes.
  await db.schema.createIndex('servers_is_monitored_idx').on('servers').column('is_monitored').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('servers_is_monitored_idx').on('servers').execute();
  await db.schema.dropTable('resource_counts').execute();
}
