// The sealed columns of the registry's resources and of the webhooks (their signing secrets and
// header values), as a whole: checked against the key at start-up, and re-sealed under a new
// key by `npm run rotate-secret-key`.
import type { EntryTables } from '../db/database-schema.js';
import type { DatabaseHandle } from '../db/connect.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { secretContext, type Row } from './entry-rows.js';
import { WEBHOOK_SEALED_COLUMNS, WEBHOOKS } from './webhook-definition.js';

/** Every write-only (sealed) column of these resources, with the context it is sealed in. */
function* secretColumns(resources: readonly ResourceDefinition[]): Generator<{ resource: ResourceDefinition; column: string; context: string }> {
  for (const resource of resources) {
    for (const field of Object.values(resource.fields)) {
      if (field.writeOnly) yield { resource, column: field.column, context: secretContext(resource, field.column) };
    }
  }
  for (const column of WEBHOOK_SEALED_COLUMNS) yield { resource: WEBHOOKS, column, context: secretContext(WEBHOOKS, column) };
}

/**
 * Opens one stored secret of each sealed column, so that a wrong SECRET_KEY (or a lost key file)
 * stops the start-up instead of failing later on the first write that needs the key.
 */
export async function secretsReadable(handle: DatabaseHandle, resources: readonly ResourceDefinition[], secrets: SecretBox): Promise<boolean> {
  for (const { resource, column, context } of secretColumns(resources)) {
    const row = (await handle.db.withTables<EntryTables>().selectFrom(resource.table).select(column).limit(1).executeTakeFirst()) as Row | undefined;
    const sealed = row?.[column];
    if (typeof sealed !== 'string') continue;
    try {
      secrets.open(sealed, context);
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Re-seals every stored secret, sealed so far by `previous`, with `next`, in one transaction:
 * either every secret moves to the new key or none does.
 */
export async function resealSecrets(handle: DatabaseHandle, resources: readonly ResourceDefinition[], previous: SecretBox, next: SecretBox): Promise<number> {
  return handle.transaction(async (tx) => {
    const db = tx.withTables<EntryTables>();
    let count = 0;
    for (const { resource, column, context } of secretColumns(resources)) {
      const rows = (await db.selectFrom(resource.table).select(['id', column]).execute()) as Row[];
      for (const row of rows) {
        const sealed = row[column];
        if (typeof sealed !== 'string') continue;
        await db.updateTable(resource.table).set({ [column]: next.seal(previous.open(sealed, context), context) }).where('id', '=', row.id).execute();
        count += 1;
      }
    }
    return count;
  });
}
