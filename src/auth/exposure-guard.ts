// Without tokens the API serves anyone who can connect, so it may only listen where no one
// else can: a loopback address. Checked before anything listens, once the managed tokens are
// known; and on any other address, anonymous access stays off even if every token is later
// revoked (requests are then refused until a token exists again).
import { isIPv4, isIPv6 } from 'node:net';
import { ConfigError } from '../errors/config-error.js';

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIPv4(bare)) return bare.startsWith('127.');
  if (isIPv6(bare)) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}

export function assertExposureAllowed(host: string, tokenCount: number): void {
  if (tokenCount > 0 || isLoopback(host)) return;
  throw new ConfigError(
    `HOST=${host} is not a loopback address and no API token is configured: anyone could read and change the configuration. ` +
      'Set API_TOKENS (or API_TOKENS_FILE), create a token with `npm run token:create -- --name NAME --scope admin`, or listen on 127.0.0.1.',
  );
}
