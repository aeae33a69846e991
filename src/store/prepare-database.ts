// Brings a database to what this service needs: the latest schema, then a count row for
// every resource of the registry and for the API tokens (a resource added later gets its row
// here, so that its migration holds its own DDL and nothing else). A database opened
// read-only (READ_ONLY=true) cannot be brought anywhere: it is only checked, and refused if
// it is not ready.
import type { DatabaseHandle } from '../db/connect.js';
import { migrateToLatest, pendingMigrations } from '../db/migrate.js';
import { ConfigError } from '../errors/config-error.js';
import type { Migration } from '../db/migrations/ddl.js';
import { MIGRATIONS } from '../db/migrations/index.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { API_TOKENS } from './api-token-definition.js';
import { WEBHOOKS } from './webhook-definition.js';
import { ensureCounts, uncounted } from './resource-counts.js';

/** Resolves to the names of the migrations it applied. */
export async function prepareDatabase(
  handle: DatabaseHandle,
  resources: readonly ResourceDefinition[],
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<string[]> {
  try {
    const applied = await migrateToLatest(handle.db, handle.ddl, migrations);
    await ensureCounts(handle, [...resources, API_TOKENS, WEBHOOKS]);
    return applied;
  } catch (error) {
    // The first statements the database sees: one that is out of reach, missing or refusing
    // the credentials shows here, as one sentence for the operator rather than a stack.
    throw handle.startupError(error);
  }
}

/** For a database opened read-only: refuses one that the service would have to change first. */
export async function checkPrepared(
  handle: DatabaseHandle,
  resources: readonly ResourceDefinition[],
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<void> {
  const pending = await pendingMigrations(handle.db, handle.ddl, migrations);
  const missing = pending.length > 0 ? [] : await uncounted(handle, [...resources, API_TOKENS, WEBHOOKS]);
  if (pending.length > 0 || missing.length > 0) {
    throw new ConfigError(
      `READ_ONLY=true needs a database this version has already prepared, and ${handle.description} is not (${pending.length > 0 ? `migrations not applied: ${pending.join(', ')}` : `no count row for ${missing.map((r) => r.table).join(', ')}`}); run npm run migrate, or start once without READ_ONLY`,
    );
  }
}
