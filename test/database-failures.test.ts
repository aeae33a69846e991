// What each database's errors mean, for the faults this machine cannot cause for real on
// the shared PostgreSQL and MariaDB servers (filling their disk, turning them read-only for
// everyone). The faults that can be caused are caused for real: process/full-disk.test.ts,
// read-only-database.test.ts. No database is needed here.
// @backend-independent (runs once, not once per backend): maps each dialect's error values, for all three dialects at once, without a database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mariadbDialect } from '../src/db/dialects/mariadb.js';
import { postgresDialect } from '../src/db/dialects/postgres.js';
import { sqliteDialect } from '../src/db/dialects/sqlite.js';
import type { DatabaseDialect, DatabaseFailure } from '../src/db/dialects/database-dialect.js';

const MEANINGS: [DatabaseDialect, string, DatabaseFailure][] = [
  [sqliteDialect, 'SQLITE_FULL', 'full'],
  [sqliteDialect, 'SQLITE_READONLY', 'read-only'],
  [sqliteDialect, 'SQLITE_READONLY_DIRECTORY', 'read-only'],
  [sqliteDialect, 'SQLITE_READONLY_DBMOVED', 'unavailable'],
  [sqliteDialect, 'SQLITE_IOERR_WRITE', 'unavailable'],
  [postgresDialect, '53100', 'full'],
  [postgresDialect, '25006', 'read-only'],
  [postgresDialect, '42501', 'read-only'],
  [postgresDialect, '3D000', 'unavailable'],
  [postgresDialect, '57P01', 'unavailable'],
  [mariadbDialect, 'ER_RECORD_FILE_FULL', 'full'],
  [mariadbDialect, 'ER_DISK_FULL', 'full'],
  [mariadbDialect, 'ER_OPTION_PREVENTS_STATEMENT', 'read-only'],
  [mariadbDialect, 'ER_READ_ONLY_MODE', 'read-only'],
  [mariadbDialect, 'ER_INNODB_READ_ONLY', 'read-only'],
  [mariadbDialect, 'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION', 'read-only'],
  [mariadbDialect, 'ER_BAD_DB_ERROR', 'unavailable'],
];

test('storage faults and missing databases are told apart by every dialect', () => {
  for (const [dialect, code, meaning] of MEANINGS) {
    assert.equal(dialect.failureOf(Object.assign(new Error('driver error'), { code })), meaning, `${dialect.schemes[0]} ${code}`);
  }
});
