// The service's own tables, as the application sees them. The tables of the resources are
// described by the registry (src/registry), which the store reads at run time; their
// migrations describe them in their own words. Migrations do not import this file.
import type { Generated } from 'kysely';

/** Entries per resource table, kept up to date by every insert and delete (list totals). */
export interface ResourceCountsTable {
  table_name: string;
  total: number;
  /** Not soft-deleted; equal to total for tables without soft delete. */
  live: number;
  /** Moved by every transaction that changes the table: the version of its lists. */
  changes: Generated<number | string>;
}

export interface Database {
  resource_counts: ResourceCountsTable;
}
