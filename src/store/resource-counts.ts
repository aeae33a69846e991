// The number of entries of each resource table, kept in `resource_counts` by every insert and
// delete in the same transaction, so that the `total` of an unfiltered list is one row read
// instead of a count over a million rows. A resource added later gets its row at start-up:
// its migration holds only its own DDL. A transaction's tail writes the changes
// (write-tail.ts); this module reads the counts and makes the rows.
import { sql, type Kysely, type QueryCreator, type RawBuilder } from 'kysely';
import type { Database, EntryTables } from '../db/database-schema.js';
import type { DatabaseHandle } from '../db/connect.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { QueryTemplates, SlotMaker } from './query-templates.js';

export type CountKind = 'live' | 'total';

/** Shares of each table's counts, where writes add to the share of their connection
 * (DialectQueries.countShard, migration 0012). */
export const COUNT_SHARDS = 64;

/** A table's counts: its resource_counts row plus the sum of its shares, in one statement (one
 * snapshot: a commit is counted whole or not at all). */
async function readShared(db: Kysely<Database>, resource: ResourceDefinition): Promise<{ total: unknown; live: unknown; changes: unknown } | undefined> {
  const { rows } = await sql<{ total: unknown; live: unknown; changes: unknown }>`select c.total + coalesce(sum(s.total), 0) as total, c.live + coalesce(sum(s.live), 0) as live,
      c.changes + coalesce(sum(s.changes), 0) as changes
    from resource_counts c left join resource_count_shards s on s.table_name = c.table_name
    where c.table_name = ${resource.table} group by c.total, c.live, c.changes`.execute(db);
  return rows[0];
}

/** `sharded`: the table's count changes may be in shares (a dialect with countShard). */
export async function readCount(db: Kysely<Database>, templates: QueryTemplates, resource: ResourceDefinition, which: CountKind, sharded = false): Promise<number> {
  if (sharded) {
    const row = await readShared(db, resource);
    if (row === undefined) throw new Error(`resource_counts has no row for ${resource.table}`);
    return Number(row[which]);
  }
  const query = templates.get('counts', (slot) => db.selectFrom('resource_counts').select(['total', 'live']).where('table_name', '=', slot(0)));
  const row = (await query.execute(db, [resource.table])).rows[0];
  if (row === undefined) throw new Error(`resource_counts has no row for ${resource.table}`);
  return Number(row[which]);
}

/** The version of a table's lists: it moves with every committed change of the table. */
export async function readChanges(db: Kysely<Database>, templates: QueryTemplates, resource: ResourceDefinition, sharded = false): Promise<string> {
  if (sharded) {
    const row = await readShared(db, resource);
    if (row === undefined) throw new Error(`resource_counts has no row for ${resource.table}`);
    return String(row.changes);
  }
  const query = templates.get('changes', (slot) => db.selectFrom('resource_counts').select('changes').where('table_name', '=', slot(0)));
  const row = (await query.execute(db, [resource.table])).rows[0];
  if (row === undefined) throw new Error(`resource_counts has no row for ${resource.table}`);
  return String(row.changes);
}

/** The update of a table's count share `shard`: slots 0 and 1 hold what to add to the total
 * and live counts, slot 2 the table's name; it moves the share's change counter by one. */
export function countShareUpdate(db: QueryCreator<Database>, slot: SlotMaker, shard: RawBuilder<number>) {
  return db
    .updateTable('resource_count_shards')
    .set((eb) => ({ total: eb('total', '+', slot(0)), live: eb('live', '+', slot(1)), changes: eb('changes', '+', 1) }))
    .where('table_name', '=', slot(2))
    .where('shard', '=', shard);
}

/** The same in the table's own row of resource_counts, where there is no share (or its row is
 * missing): slots as countShareUpdate's. */
export function countRowUpdate(db: QueryCreator<Database>, slot: SlotMaker) {
  return db
    .updateTable('resource_counts')
    .set((eb) => ({ total: eb('total', '+', slot(0)), live: eb('live', '+', slot(1)), changes: eb('changes', '+', 1) }))
    .where('table_name', '=', slot(2));
}

/** The resources that have no resource_counts row yet. */
export async function uncounted(handle: DatabaseHandle, resources: readonly ResourceDefinition[]): Promise<ResourceDefinition[]> {
  const present = new Set((await handle.db.selectFrom('resource_counts').select('table_name').execute()).map((row) => row.table_name));
  return resources.filter((resource) => !present.has(resource.table));
}

/** A write that must reach the disk yet changes nothing in the end: one count up by one and
 * back, committed. Whether it succeeds tells whether the database can store writes now. */
export async function probeWrite(handle: DatabaseHandle, resource: ResourceDefinition): Promise<void> {
  await handle.transaction(async (tx) => {
    for (const step of [1, -1]) {
      await tx.updateTable('resource_counts').set((eb) => ({ total: eb('total', '+', step) })).where('table_name', '=', resource.table).execute();
    }
  });
}

/**
 * Gives every resource without one its resource_counts row, counted from its table in the
 * transaction that inserts it. Two instances starting together may both try: the table's key
 * refuses the second row, and the first one stands.
 */
export async function ensureCounts(handle: DatabaseHandle, resources: readonly ResourceDefinition[]): Promise<void> {
  await ensureCountRows(handle, resources);
  if (handle.queries.countShard(COUNT_SHARDS) !== undefined) for (const resource of resources) await ensureShares(handle, resource);
}

/** Gives `resource` its COUNT_SHARDS shares, at zero. Two instances starting together may both
 * try: the key refuses the second rows, and each then adds only what is still missing. */
async function ensureShares(handle: DatabaseHandle, resource: ResourceDefinition): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const present = new Set(
      (await handle.db.selectFrom('resource_count_shards').select('shard').where('table_name', '=', resource.table).execute()).map((row) => Number(row.shard)),
    );
    const missing = Array.from({ length: COUNT_SHARDS }, (_, shard) => shard).filter((shard) => !present.has(shard));
    if (missing.length === 0) return;
    try {
      await handle.db
        .insertInto('resource_count_shards')
        .values(missing.map((shard) => ({ table_name: resource.table, shard, total: 0, live: 0, changes: 0 })))
        .execute();
      return;
    } catch (error) {
      if (handle.failureOf(error) !== 'unique' || attempt >= 3) throw error;
    }
  }
}

async function ensureCountRows(handle: DatabaseHandle, resources: readonly ResourceDefinition[]): Promise<void> {
  for (const resource of await uncounted(handle, resources)) {
    const deletion = resource.deletion;
    try {
      await handle.transaction(async (tx) => {
        const db = tx.withTables<EntryTables>();
        const total = await db.selectFrom(resource.table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
        const live =
          deletion.mode === 'soft'
            ? await db.selectFrom(resource.table).select((eb) => eb.fn.countAll().as('n')).where(deletion.liveColumn, 'is not', null).executeTakeFirstOrThrow()
            : total;
        await tx.insertInto('resource_counts').values({ table_name: resource.table, total: Number(total.n), live: Number(live.n) }).execute();
      });
    } catch (error) {
      if (handle.failureOf(error) !== 'unique') throw error;
    }
  }
}
