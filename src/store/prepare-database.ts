// Brings a database to what this service needs: the latest schema, then a count row for
// every resource of the registry and for the API tokens (a resource added later gets its row
// here, so that its migration holds its own DDL and nothing else).
import type { DatabaseHandle } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Migration } from '../db/migrations/ddl.js';
import { MIGRATIONS } from '../db/migrations/index.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { API_TOKENS } from './api-token-definition.js';
import { ensureCounts } from './resource-counts.js';

/** Resolves to the names of the migrations it applied. */
export async function prepareDatabase(
  handle: DatabaseHandle,
  resources: readonly ResourceDefinition[],
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<string[]> {
  const applied = await migrateToLatest(handle.db, handle.ddl, migrations);
  await ensureCounts(handle, [...resources, API_TOKENS]);
  return applied;
}
