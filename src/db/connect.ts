// Turns DATABASE_URL into a database handle: the dialect module is chosen here, once, and the
// rest of the code sees only Kysely, the dialect's capabilities and the handle's methods.
import { Kysely, sql, type Transaction } from 'kysely';
import { ConfigError } from '../errors/config-error.js';
import type { Database } from './database-schema.js';
import type { ChangeSignal, ConnectOptions, GroupedWork, TailedResult, TransactionRunner, TransactionTail, DatabaseCapabilities, DatabaseDialect, DatabaseFailure, DialectQueries, OpenedDatabase, PoolStatistics, ReadSnapshot, SingleCreateStatement, SingleCreateValues, StorageFault } from './dialects/database-dialect.js';
import { mariadbDialect } from './dialects/mariadb.js';
import { postgresDialect } from './dialects/postgres.js';
import { sqliteDialect } from './dialects/sqlite.js';
import type { Ddl } from './migrations/ddl.js';

export type { ChangeSignal, ConnectOptions, TailedResult, TransactionTail, DatabaseCapabilities, DatabaseFailure, DialectQueries, PoolStatistics, ReadSnapshot, SingleCreateStatement, SingleCreateValues, StorageFault };

const DIALECTS: readonly DatabaseDialect[] = [sqliteDialect, postgresDialect, mariadbDialect];

/** What a dialect's open database offers beside Kysely (OpenedDatabase, where each is
 * described): handed on as the dialect made it, undefined where it has none. */
type DialectFacilities = Omit<OpenedDatabase, 'dialect' | 'transactions'>;

export interface DatabaseHandle extends DialectFacilities {
  readonly db: Kysely<Database>;
  readonly capabilities: DatabaseCapabilities;
  /** DDL spelled the dialect's way, for migrations. */
  readonly ddl: Ddl;
  /** Query parts spelled the dialect's way, for the store. */
  readonly queries: DialectQueries;
  /** A short, credential-free description for logs. */
  readonly description: string;
  /** Runs `work` in a transaction (grouped with others where the dialect says so): committed
   * if it resolves, rolled back if it throws. `durable: false` where losing the commit in a
   * power cut is harmless: SQLite's commit group then skips the fsync (sqlite-commit-group.ts),
   * PostgreSQL the wait for the WAL's flush (the dialect's lazyCommit); MariaDB's commits are
   * all as its server is set. `tail`: writes the part the work leaves beside its value
   * (TailedResult), after the work, before the COMMIT, with the other parts of the
   * transaction; every tail on a handle is of one kind, the store's. */
  transaction<T>(work: (tx: Transaction<Database>) => Promise<T>, durable?: boolean): Promise<T>;
  transaction<T, Part>(work: (tx: Transaction<Database>) => Promise<TailedResult<T, Part>>, durable: boolean | undefined, tail: TransactionTail<Part>): Promise<T>;
  /** What a driver error means. */
  failureOf(error: unknown): DatabaseFailure;
  /** The error to stop the start with: one sentence for the operator (a ConfigError) when
   * `error` says the database cannot be reached, does not exist or refuses the credentials;
   * `error` itself otherwise. */
  startupError(error: unknown): unknown;
  /** Resolves once `select 1` has answered, rejects if it fails or takes over `timeoutMs`. */
  ping(timeoutMs: number): Promise<void>;
}

/** A transaction of one work, with its tail if it has one. */
async function alone(tx: Transaction<Database>, work: GroupedWork, tail: TransactionTail | undefined): Promise<unknown> {
  const result = await work(tx);
  if (tail === undefined) return result;
  const { value, part } = result as TailedResult<unknown>;
  await tail.write(tx, [part]);
  return value;
}

async function ping(db: Kysely<Database>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const answer = sql`select 1`.execute(db);
  // A pool that is still waiting for a connection keeps the query pending past the deadline;
  // its late failure must not become an unhandled rejection.
  answer.catch(() => undefined);
  const deadline = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** SQLite's readiness check, at once on its one connection when no transaction holds it: it
 * then never waits in Kysely's queue behind other queries. Undefined where it cannot. */
function pingNow(opened: OpenedDatabase): Promise<void> | undefined {
  try {
    return opened.readRowNow?.('select 1', []) === undefined ? undefined : Promise.resolve();
  } catch (error) {
    return Promise.reject(error);
  }
}

export function dialectOf(url: string): DatabaseDialect {
  const scheme = `${url.split(':', 1)[0]?.toLowerCase()}:`;
  const dialect = DIALECTS.find((candidate) => candidate.schemes.includes(scheme));
  if (dialect === undefined) {
    const schemes = DIALECTS.flatMap((candidate) => candidate.schemes).join(', ');
    throw new ConfigError(`DATABASE_URL scheme "${scheme}" is not supported; use ${schemes}`);
  }
  return dialect;
}

/** One line: what is wrong with which database, the driver's own words, and what to check. */
function startupError(dialect: DatabaseDialect, description: string, error: unknown): unknown {
  const failure = dialect.startupFailureOf(error);
  if (failure === undefined) return error;
  const cause = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim().slice(0, 200);
  return new ConfigError(`${description}: ${failure.what} (${cause}); ${failure.check}`);
}

export function connectDatabase(url: string, options: ConnectOptions): DatabaseHandle {
  const dialect = dialectOf(url);
  const description = dialect.describe(url);
  let opened: OpenedDatabase;
  try {
    opened = dialect.open(url, options);
  } catch (error) {
    // SQLite opens its file here, and may find it cannot.
    throw startupError(dialect, description, error);
  }
  const db = new Kysely<Database>({ dialect: opened.dialect });
  const lazyCommit = dialect.queries.lazyCommit;
  const runTransaction: TransactionRunner =
    opened.transactions?.(db) ??
    ((work, durable, tail) =>
      db.transaction().execute(async (tx) => {
        if (durable === false && lazyCommit !== undefined) await lazyCommit.execute(tx);
        return alone(tx, work, tail);
      }));
  const { dialect: _kyselyDialect, transactions: _transactions, ...facilities } = opened;
  return {
    ...facilities,
    db,
    capabilities: dialect.capabilities,
    ddl: dialect.ddl,
    queries: dialect.queries,
    description,
    // The runner itself, not a function around it: a write goes from the store to the runner.
    transaction: runTransaction as DatabaseHandle['transaction'],
    failureOf: (error) => dialect.failureOf(error) ?? 'other',
    startupError: (error) => startupError(dialect, description, error),
    ping: (timeoutMs) => pingNow(opened) ?? ping(db, timeoutMs),
  };
}
