// Kysely's SQLite dialect, as the service runs it: BEGIN IMMEDIATE, and DDL in transactions.
import { CompiledQuery, SqliteAdapter, SqliteDialect, SqliteDriver, type DatabaseConnection, type DialectAdapter, type Driver, type SqliteDialectConfig } from 'kysely';

// A deferred BEGIN takes the write lock only at the first write: when another process (a
// cluster worker) committed since this transaction read, SQLite fails it with BUSY_SNAPSHOT
// at once instead of waiting. BEGIN IMMEDIATE takes the lock first and waits busy_timeout,
// so transactions of every process on one file run one at a time, as they do within one.
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

// SQLite runs DDL in transactions, though Kysely's adapter says otherwise. Saying so makes
// the migrator run in one BEGIN IMMEDIATE transaction, so that processes starting together
// on one file migrate it one after the other instead of each creating the same tables.
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
