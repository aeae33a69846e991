// Frozen. A tag filter skips and counts deleted servers from its link table alone (docs/decisions.md,
// "A tag filter is driven by its link table").
//
// A list filtered by tag reads server_tags by (id_tag, id_server), but its count (up to
// LIST_EXACT_TOTAL_MAX + 1 matches) then read each server's row to check "not deleted": rows
// one in a hundred apart at a million servers, costlier than the plain first page. Each
// link now holds a copy of its server's is_deleted (owner_deleted, kept in step by the store
// in the same transaction as the server's delete or restore), and the tag index holds it
// after the id, so that the count reads the index alone and a page passes deleted servers
// without reading them. After the id, it changes no order: the index still gives a tag's
// servers in id order, deleted ones included (include_deleted=true), and still serves the
// delete of a tag and the foreign key on id_tag (MariaDB refuses to drop the index a foreign
// key uses until another serves it, hence made before the old one is dropped).
import type { Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await db.schema.alterTable('server_tags').addColumn('owner_deleted', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // Through the (is_deleted, id) index of 0005: reads the deleted servers only.
  await db
    .updateTable('server_tags')
    .set({ owner_deleted: 1 })
    .where('id_server', 'in', db.selectFrom('servers').select('id').where('is_deleted', '=', 1))
    .execute();
  await db.schema.createIndex('server_tags_tag_count_idx').on('server_tags').columns(['id_tag', 'id_server', 'owner_deleted']).execute();
  await ddl.dropIndex(db, 'server_tags', 'server_tags_tag_idx');
}

export async function down(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await db.schema.createIndex('server_tags_tag_idx').on('server_tags').columns(['id_tag', 'id_server']).execute();
  await ddl.dropIndex(db, 'server_tags', 'server_tags_tag_count_idx');
  await db.schema.alterTable('server_tags').dropColumn('owner_deleted').execute();
}
