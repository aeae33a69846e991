// A list request as the store runs it: columns and values only, every column named by the
// registry (the pipeline's parse step checked the query string against it).
import type { LinkTable, ResourceDefinition } from '../registry/resource-definition.js';

export interface SortKey {
  readonly column: string;
  readonly descending: boolean;
  /** The column may hold NULL, which sorts before every value on every backend. */
  readonly nullable: boolean;
}

export interface Filter {
  readonly column: string;
  readonly value: unknown;
}

/** Entries whose set (kept in `link`) holds `id`. */
export interface LinkFilter {
  readonly link: LinkTable;
  readonly id: number;
}

export interface ListQuery {
  readonly limit: number;
  readonly offset: number;
  /** Always ends with the id, so that pages never overlap or skip entries. */
  readonly sort: readonly SortKey[];
  readonly filters: readonly Filter[];
  /** Every one must hold. */
  readonly linkFilters: readonly LinkFilter[];
  /** Case-insensitive substring over the searchable columns. */
  readonly search?: { readonly text: string; readonly columns: readonly string[] };
  /** Soft-deleted entries are listed too. */
  readonly includeDeleted: boolean;
  /** Keyset paging: the sort keys' column values of the last entry of the page before, one
   * per sort key (the page starts after it). */
  readonly after?: readonly unknown[];
}

/** How a list's total is found (docs/decisions.md, "Totals"): an unfiltered list's is the
 * count kept in resource_counts, of the live entries or of all of them; a filtered list's is
 * told by a page that ends the list, or else its matches are counted up to the store's cap. */
export type ListTotal = { readonly kind: 'kept'; readonly of: 'live' | 'total' } | { readonly kind: 'counted' };

export function listTotal(resource: ResourceDefinition, list: ListQuery): ListTotal {
  const searched = list.search !== undefined && list.search.columns.length > 0;
  if (list.filters.length > 0 || list.linkFilters.length > 0 || searched) return { kind: 'counted' };
  return { kind: 'kept', of: resource.deletion.mode === 'soft' && !list.includeDeleted ? 'live' : 'total' };
}
