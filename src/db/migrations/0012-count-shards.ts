// Frozen. Shares of the count rows (docs/decisions.md, "Writes that scale"): on PostgreSQL and
// MariaDB each write adds its count changes to the share of its connection, not to the one
// row of its table in resource_counts, whose lock every writer of the table would otherwise
// hold until its commit, one after another. A table's count is its resource_counts row plus
// the sum of its shares, read in one statement. The rows of the shares are made at start-up.
import type { Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await ddl
    .createLinkTable(db, 'resource_count_shards', (t) =>
      t
        .addColumn('table_name', 'varchar(64)', (c) => c.notNull())
        .addColumn('shard', 'integer', (c) => c.notNull())
        .addColumn('total', 'bigint', (c) => c.notNull())
        .addColumn('live', 'bigint', (c) => c.notNull())
        .addColumn('changes', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('resource_count_shards_pk', ['table_name', 'shard']),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('resource_count_shards').execute();
}
