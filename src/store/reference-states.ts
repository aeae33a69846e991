// What the entries a write points at are (live, deleted or missing), looked up in one
// statement for all of them: one SELECT per table pointed at, joined by UNION ALL, each with
// the ids wanted. A server with three tags, a client and an environment was five round trips
// of its transaction, one per id; on a database server each is a socket write and a wake-up
// of both sides.
import { sql } from 'kysely';
import type { EntryDatabase } from '../db/database-schema.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { QueryTemplates } from './query-templates.js';

export type ReferenceState = 'live' | 'deleted' | 'missing';

/** The key of an entry's state in `states`. */
export function referenceKey(resource: CompiledResource, id: number): string {
  return `${resource.table}/${id}`;
}

/** Looks up the entries of `wanted` (ids by resource, each once) and puts their states in
 * `states` under referenceKey. */
export async function lookUpReferenceStates(
  db: EntryDatabase,
  templates: QueryTemplates,
  wanted: ReadonlyMap<CompiledResource, readonly number[]>,
  states: Map<string, ReferenceState>,
): Promise<void> {
  const groups = [...wanted];
  if (groups.length === 0) return;
  // A template per tables and numbers of ids: a write points at few of either.
  const key = `references ${groups.map(([resource, ids]) => `${resource.table}:${ids.length}`).join(' ')}`;
  const query = templates.get(key, (slot) => {
    let next = 0;
    const selects = groups.map(([resource, ids], index) => {
      // A hard-deleted entry is gone: any row found is live.
      const live = resource.deletion.mode === 'soft' ? sql.ref(resource.deletion.liveColumn) : sql.lit(1);
      return (db as any)
        .selectFrom(resource.table)
        .select([sql.lit(index).as('target'), 'id', live.as('live')])
        .where(
          'id',
          'in',
          ids.map(() => slot(next++)),
        );
    });
    return selects.slice(1).reduce((all, select) => all.unionAll(select), selects[0]);
  });
  const { rows } = await query.execute(db, groups.flatMap(([, ids]) => ids));
  for (const [resource, ids] of groups) for (const id of ids) states.set(referenceKey(resource, id), 'missing');
  for (const row of rows as { target: unknown; id: unknown; live: unknown }[]) {
    const [resource] = groups[Number(row.target)]!;
    states.set(referenceKey(resource, Number(row.id)), row.live === null ? 'deleted' : 'live');
  }
}
