// The number of entries of each resource table, kept in `resource_counts` by every insert and
// delete in the same transaction, so that the `total` of an unfiltered list is one row read
// instead of a count over a million rows. A resource added later gets its row at start-up:
// its migration holds only its own DDL.
import type { Kysely } from 'kysely';
import type { Database } from '../db/database-schema.js';
import type { DatabaseHandle } from '../db/connect.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { QueryTemplates } from './query-templates.js';

export type CountKind = 'live' | 'total';

export async function readCount(db: Kysely<Database>, templates: QueryTemplates, resource: ResourceDefinition, which: CountKind): Promise<number> {
  const query = templates.get('counts', (slot) => db.selectFrom('resource_counts').select(['total', 'live']).where('table_name', '=', slot(0)));
  const row = (await query.execute(db, [resource.table])).rows[0];
  if (row === undefined) throw new Error(`resource_counts has no row for ${resource.table}`);
  return Number(row[which]);
}

/** The version of a table's lists: it moves with every committed change of the table. */
export async function readChanges(db: Kysely<Database>, templates: QueryTemplates, resource: ResourceDefinition): Promise<string> {
  const query = templates.get('changes', (slot) => db.selectFrom('resource_counts').select('changes').where('table_name', '=', slot(0)));
  const row = (await query.execute(db, [resource.table])).rows[0];
  if (row === undefined) throw new Error(`resource_counts has no row for ${resource.table}`);
  return String(row.changes);
}

/** Keeps resource_counts in step with the inserts and deletes of a transaction that changed
 * the table, and moves its change counter, in the same transaction. */
export async function adjustCount(tx: Kysely<Database>, templates: QueryTemplates, resource: ResourceDefinition, total: number, live: number): Promise<void> {
  const query = templates.get('adjust counts', (slot) =>
    tx
      .updateTable('resource_counts')
      .set((eb) => ({ total: eb('total', '+', slot(0)), live: eb('live', '+', slot(1)), changes: eb('changes', '+', 1) }))
      .where('table_name', '=', slot(2)),
  );
  await query.execute(tx, [total, live, resource.table]);
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
  for (const resource of await uncounted(handle, resources)) {
    const deletion = resource.deletion;
    try {
      await handle.transaction(async (tx) => {
        const db = tx as Kysely<any>;
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
