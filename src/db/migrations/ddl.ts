// What a migration is handed besides the database: the few DDL statements that each dialect
// spells its own way. Migrations use these instead of asking which database they run on, and
// import nothing else from the application (they are frozen in time). Each dialect module
// implements this interface; what an existing helper emits never changes (add a new one).
import type { CreateTableBuilder, Expression, Kysely } from 'kysely';

export type TableBuilder = CreateTableBuilder<string, any>;

/** The table a reference column points at (its `id`), and whether the column may be NULL. */
export interface ReferenceColumn {
  readonly table: string;
  readonly nullable?: boolean;
}

export interface Ddl {
  /**
   * A table of entries: an integer `id` primary key that the database assigns, the columns
   * `columns` adds, then `created_at` and `updated_at` (ISO text); text compares exactly
   * (binary collation) on every backend. Call `.execute()` on the result.
   */
  createEntryTable(db: Kysely<any>, name: string, columns: (table: TableBuilder) => TableBuilder): TableBuilder;
  /**
   * createEntryTable, run, with reference columns: for the migrations written from now on.
   * Each column of `references` holds the id of an entry of its `table` (a `types.reference`
   * field): an integer with a foreign key to that table's `id`, NOT NULL unless `nullable`,
   * and indexed (`<name>_<column>_idx`) where the database does not index foreign keys by
   * itself. Deleting an entry looks up what points at it (409 REFERENCED): without the index
   * every delete of the table pointed at reads the whole referencing table.
   */
  createEntryTableWithReferences(
    db: Kysely<any>,
    name: string,
    references: Readonly<Record<string, ReferenceColumn>>,
    columns: (table: TableBuilder) => TableBuilder,
  ): Promise<void>;
  /** A table of pairs (no id, no timestamps), with the same table options as entry tables. */
  createLinkTable(db: Kysely<any>, name: string, columns: (table: TableBuilder) => TableBuilder): TableBuilder;
  /** A queue table: a 64-bit `seq` primary key that the database assigns in the order rows
   * are inserted, then the columns `columns` adds (no timestamps), with the table options of
   * entry tables. Call `.execute()` on the result. */
  createQueueTable(db: Kysely<any>, name: string, columns: (table: TableBuilder) => TableBuilder): TableBuilder;
  /** After rows were inserted with explicit ids: new rows get ids above the largest. */
  continueIdsAfterSeeds(db: Kysely<any>, table: string): Promise<void>;
  /** Drops index `name` of `table` (MariaDB names the table, the others refuse it). */
  dropIndex(db: Kysely<any>, table: string, name: string): Promise<void>;
  /** An index column in which NULL comes before every value, as lists sort it. */
  nullsFirst(column: string): Expression<unknown>;
  /** An index `name` for case-insensitive substring search (`lower(column) LIKE '%…%'`) over
   * `columns` of `table`, kept in step with the table by the database: SQLite an FTS5 trigram
   * table named `name` filled by triggers, PostgreSQL a pg_trgm GIN index per column (named
   * `name_column`), MariaDB none (it has no substring index). */
  createSearchIndex(db: Kysely<any>, table: string, name: string, columns: readonly string[]): Promise<void>;
  dropSearchIndex(db: Kysely<any>, table: string, name: string, columns: readonly string[]): Promise<void>;
  /** Makes the search index of createSearchIndex keep only what substring search reads:
   * SQLite makes its FTS5 table again with `columnsize=0` (no per-row column sizes, which only
   * ranking reads), the others have nothing to drop. */
  trimSearchIndex(db: Kysely<any>, table: string, name: string, columns: readonly string[]): Promise<void>;
  /** Makes the search index of createSearchIndex written once per transaction: SQLite's
   * triggers append to a queue table that the transaction moves into the FTS5 table before its
   * COMMIT (src/db/dialects/sqlite-search-queue.ts); the others' indexes are the database's own. */
  queueSearchIndexWrites(db: Kysely<any>, table: string, name: string, columns: readonly string[]): Promise<void>;
  /** Undoes queueSearchIndexWrites. */
  writeSearchIndexDirectly(db: Kysely<any>, table: string, name: string, columns: readonly string[]): Promise<void>;
}

export interface Migration {
  up(db: Kysely<any>, ddl: Ddl): Promise<void>;
  down?(db: Kysely<any>, ddl: Ddl): Promise<void>;
}
