// What a driver error means for the API, whatever the backend: each driver names the same
// few situations in its own words, and they are translated here only.

export type DatabaseFailure = 'unique' | 'foreign-key' | 'unavailable' | 'other';

const UNIQUE = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', '23505', 'ER_DUP_ENTRY']);
const FOREIGN_KEY = new Set([
  'SQLITE_CONSTRAINT_FOREIGNKEY',
  '23503',
  'ER_NO_REFERENCED_ROW_2',
  'ER_ROW_IS_REFERENCED_2',
  'ER_NO_REFERENCED_ROW',
  'ER_ROW_IS_REFERENCED',
]);
const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  // Deadlocks and serialization failures (Galera certification conflicts among them) are
  // transient: the caller should try again, as after an outage.
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  '40001',
  '40P01',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_STATEMENT_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);

// node-postgres reports a lost or unobtainable connection without a code.
const UNAVAILABLE_MESSAGE = /timeout exceeded when trying to connect|Connection terminated|Query read timeout|Pool is closed|connection is closed/i;

export function classifyDatabaseError(error: unknown): DatabaseFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') {
    return error instanceof Error && UNAVAILABLE_MESSAGE.test(error.message) ? 'unavailable' : 'other';
  }
  if (UNIQUE.has(code)) return 'unique';
  if (FOREIGN_KEY.has(code)) return 'foreign-key';
  if (UNAVAILABLE.has(code) || code.startsWith('SQLITE_IOERR')) return 'unavailable';
  return 'other';
}
