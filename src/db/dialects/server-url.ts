// What the two database servers (PostgreSQL, MariaDB) share: DATABASE_URL parsed and
// described for logs without its credentials, and the meaning of their errors, at start-up too.
import { ConfigError } from '../../errors/config-error.js';
import type { DatabaseFailure, StartupFailure } from './database-dialect.js';

export function parseServerUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new ConfigError('DATABASE_URL is not a valid URL');
  }
}

/** Where a server-backed database is, without the credentials. */
export function describeServer(product: string, url: URL): string {
  return `${product} (${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname})`;
}

/** Network failures, whichever driver reports them: the database is out of reach. */
const NETWORK_FAILURES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

/**
 * The meaning of a server driver's error: its own codes, then the network's; an error
 * without a code is unavailability when its message says so (node-postgres reports a lost
 * connection that way).
 */
export function serverFailureOf(codes: Readonly<Record<string, DatabaseFailure>>, unavailableMessage?: RegExp): (error: unknown) => DatabaseFailure | undefined {
  return (error) => {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string') return error instanceof Error && unavailableMessage?.test(error.message) ? 'unavailable' : undefined;
    return codes[code] ?? (NETWORK_FAILURES.has(code) ? 'unavailable' : undefined);
  };
}

/** The start-up failures a database server reports, whichever driver reports them. */
export type ServerStartupFailure = 'database-missing' | 'access-denied';

const SERVER_STARTUP_FAILURES: Readonly<Record<ServerStartupFailure | 'unreachable', StartupFailure>> = {
  unreachable: {
    what: 'the database server cannot be reached',
    check: 'check that it is running and that DATABASE_URL names its host and port',
  },
  'database-missing': {
    what: 'the database does not exist',
    check: 'create it (docs/operations.md, Scaling out) or correct the database name in DATABASE_URL',
  },
  'access-denied': {
    what: 'the database server refused the user or password',
    check: 'check the user and password in DATABASE_URL, and that this user may use the database',
  },
};

/**
 * The start-up failure a server driver's error stands for: its own codes for a missing
 * database or refused credentials, then anything that means the server is out of reach.
 */
export function serverStartupFailureOf(
  codes: Readonly<Record<string, ServerStartupFailure>>,
  failureOf: (error: unknown) => DatabaseFailure | undefined,
): (error: unknown) => StartupFailure | undefined {
  return (error) => {
    const code = (error as { code?: unknown } | null)?.code;
    const known = typeof code === 'string' && Object.hasOwn(codes, code) ? codes[code] : undefined;
    if (known !== undefined) return SERVER_STARTUP_FAILURES[known];
    return failureOf(error) === 'unavailable' ? SERVER_STARTUP_FAILURES.unreachable : undefined;
  };
}
