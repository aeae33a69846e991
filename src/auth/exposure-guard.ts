// Without tokens the API serves anyone who can connect, so it may only listen where no one
// else can: a loopback address. Checked before anything listens, once the managed tokens are
// known; and on any other address, anonymous access stays off even if every token is later
// revoked (requests are then refused until a token exists again). Even on loopback, anonymous
// access is for clients of this machine only: see isLoopbackAuthority and the authorization hook.
import { isIPv4, isIPv6 } from 'node:net';
import { ConfigError } from '../errors/config-error.js';

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIPv4(bare)) return bare.startsWith('127.');
  if (isIPv6(bare)) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}

/**
 * Whether a Host header names this machine by a loopback name or address (`localhost`,
 * `127.x.x.x`, `[::1]`, each with or without a port). A web page that rebinds its own DNS name
 * to 127.0.0.1 reaches the service with its own name in Host: that is what this refuses.
 */
export function isLoopbackAuthority(hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false;
  const authority = hostHeader.toLowerCase();
  // `[v6]` or `[v6]:port`; else `name` or `name:port` (a bare IPv6 address is not a Host).
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::\d{1,5})?$/.exec(authority);
  if (match === null) return false;
  const host = match[1]!;
  // Bracketed must be IPv6 (isLoopback also reads `[localhost]`, which no client sends).
  if (host.startsWith('[') && !isIPv6(host.slice(1, -1))) return false;
  return isLoopback(host);
}

export function assertExposureAllowed(host: string, tokenCount: number): void {
  if (tokenCount > 0 || isLoopback(host)) return;
  throw new ConfigError(
    `HOST=${host} is not a loopback address and no API token is configured: anyone could read and change the configuration. ` +
      'Set API_TOKENS (or API_TOKENS_FILE), create a token with `npm run token:create -- --name NAME --scope admin`, or listen on 127.0.0.1.',
  );
}
