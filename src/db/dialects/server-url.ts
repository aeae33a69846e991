// What the two database servers (PostgreSQL, MariaDB) share: DATABASE_URL parsed and
// described for logs without its credentials, and the meaning of their errors.
import { ConfigError } from '../../errors/config-error.js';
import type { DatabaseFailure } from './database-dialect.js';

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
