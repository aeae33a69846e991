// Frozen. A server belongs to a client and an environment and carries tags (contract section
// 11), as in the platform's own database (mysql_server.id_client, id_environment, and the
// link table link__mysql_server__tag). Servers reference them; dashboards filter by them.
import type { Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await db.schema.alterTable('servers').addColumn('id_client', 'integer', (c) => c.references('clients.id')).execute();
  await db.schema.alterTable('servers').addColumn('id_environment', 'integer', (c) => c.references('environments.id')).execute();
  await db.schema.createIndex('servers_id_client_idx').on('servers').column('id_client').execute();
  await db.schema.createIndex('servers_id_environment_idx').on('servers').column('id_environment').execute();
  await ddl
    .createLinkTable(db, 'server_tags', (table) =>
      table
        .addColumn('id_server', 'integer', (c) => c.notNull().references('servers.id'))
        .addColumn('id_tag', 'integer', (c) => c.notNull().references('tags.id'))
        .addPrimaryKeyConstraint('server_tags_pk', ['id_server', 'id_tag']),
    )
    .execute();
  // The tag filter and the delete of a tag look servers up by tag.
  await db.schema.createIndex('server_tags_tag_idx').on('server_tags').columns(['id_tag', 'id_server']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('server_tags').execute();
  await db.schema.dropIndex('servers_id_environment_idx').on('servers').execute();
  await db.schema.dropIndex('servers_id_client_idx').on('servers').execute();
  await db.schema.alterTable('servers').dropColumn('id_environment').execute();
  await db.schema.alterTable('servers').dropColumn('id_client').execute();
}
