// The service's own tables, as the application sees them. The tables of the resources are
// described by the registry (src/registry), which the store reads at run time; their
// migrations describe them in their own words. Migrations do not import this file.
import type { Generated, Kysely } from 'kysely';

/** Entries per resource table, kept up to date by every insert and delete (list totals). */
export interface ResourceCountsTable {
  table_name: string;
  total: number;
  /** Not soft-deleted; equal to total for tables without soft delete. */
  live: number;
  /** Moved by every transaction that changes the table: the version of its lists. */
  changes: Generated<number | string>;
}

/** Managed API tokens: the columns the token store reads and writes beside the registry-driven
 * ones (the entry's fields are described by src/store/api-token-definition.ts). */
export interface ApiTokensTable {
  id: number;
  name: string;
  scope: string;
  /** HMAC-SHA-256 of the token under the token key, base64url; never the token. */
  digest: string;
  expires_at: string | null;
  /** JSON array of CIDR ranges. */
  allowed_ips: string | null;
  last_used_at: string | null;
}

/** One row (id 1): moved by every token creation and revocation; the token key's check value. */
export interface ApiTokenStateTable {
  id: number;
  generation: number;
  key_check: string | null;
}

/** One committed change of an entry (contract section 13). */
export interface ChangeLogTable {
  id: number | string;
  at: string;
  action: string;
  resource: string;
  entry_id: number | string;
  actor: string;
  request_id: string;
  before_json: string | null;
  after_json: string | null;
  secrets_changed_json: string;
}

/** One row (id 1): the last change id taken; its row lock orders the change log's commits. */
export interface ChangeLogStateTable {
  id: number;
  last_id: number | string;
}

/** Webhooks (contract section 16): the columns the webhook store reads and writes beside the
 * registry-driven ones (src/store/webhook-definition.ts). */
export interface WebhooksTable {
  id: Generated<number>;
  name: string;
  url: string;
  resources: string;
  actions: string;
  enabled: number;
  header_names: string;
  /** Sealed JSON object of the extra headers, or NULL for none. */
  header_values: string | null;
  /** Sealed `whsec_…`. */
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  failing_since: string | null;
  disabled_reason: string | null;
  since_change_id: number | string;
  created_at: string;
  updated_at: string;
}

/** One delivery of one change (or ping) to one webhook, with its attempts. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  change_id: number | string | null;
  type: string;
  payload: string;
  status: string;
  /** JSON array of the attempts, as the API shows them. */
  attempts: string;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
}

/** One row (id 1): the last change id whose deliveries were made. */
export interface WebhookStateTable {
  id: number;
  last_change_id: number | string;
}

/** A change record waiting for its id (migration 0011): `seq` orders the queue only. */
export interface ChangeLogPendingTable extends Omit<ChangeLogTable, 'id'> {
  seq: Generated<number | string>;
}

/** A change record's columns but its id, in the order the writers bind their values (the
 * store's, and the dialects' own statements). */
export const PENDING_COLUMNS = ['at', 'action', 'resource', 'entry_id', 'actor', 'request_id', 'before_json', 'after_json', 'secrets_changed_json'] as const;

/** A share of a table's counts (migration 0012): the table's count is its resource_counts row
 * plus the sum of its shares. */
export interface ResourceCountShardsTable {
  table_name: string;
  shard: number;
  total: number | string;
  live: number | string;
  changes: number | string;
}

export interface Database {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_state: WebhookStateTable;
  resource_counts: ResourceCountsTable;
  resource_count_shards: ResourceCountShardsTable;
  api_tokens: ApiTokensTable;
  api_token_state: ApiTokenStateTable;
  change_log: ChangeLogTable;
  change_log_state: ChangeLogStateTable;
  change_log_pending: ChangeLogPendingTable;
}

/** The tables the registry describes (src/registry and the resources defined beside their
 * stores), with their link tables: named at run time, so Kysely knows their columns only as
 * names, and their values as unknown until a field type's column form reads them. Queries of
 * these tables take an `EntryDatabase`, not `Kysely<any>`: a value read is unknown until it is
 * decoded. */
export type EntryTables = Record<string, Record<string, unknown>>;

/** The service's database with the registry's tables: `handle.db.withTables<EntryTables>()`
 * (which adds types only: the same connection, the same transaction). */
export type EntryDatabase = Kysely<Database & EntryTables>;
