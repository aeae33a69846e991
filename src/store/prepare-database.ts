// Brings a database to what this service needs: the latest schema, then a count row for
// every resource of the registry (a resource added later gets its row here, so that its
// migration holds its own DDL and nothing else).
import type { DatabaseHandle } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Migration } from '../db/migrations/ddl.js';
import { MIGRATIONS } from '../db/migrations/index.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { ensureCounts } from './resource-counts.js';

/** Resolves to the names of the migrations it applied. */
export async function prepareDatabase(
  handle: DatabaseHandle,
  resources: readonly ResourceDefinition[],
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<string[]> {
  try {
    const applied = await migrateToLatest(handle.db, handle.ddl, migrations);
    await ensureCounts(handle, resources);
    return applied;
  } catch (error) {
    // The first statements the database sees: one that is out of reach, missing or refusing
    // the credentials shows here, as one sentence for the operator rather than a stack.
    throw handle.startupError(error);
  }
}
