// Without tokens the API serves anyone who can connect, so it may only listen where no one
// else can: a loopback address. Checked before anything listens.
import { isIPv4, isIPv6 } from 'node:net';
import { ConfigError } from '../errors/config-error.js';

function isLoopback(host: string): boolean {
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
      'Set API_TOKENS (or API_TOKENS_FILE), or listen on 127.0.0.1.',
  );
}
