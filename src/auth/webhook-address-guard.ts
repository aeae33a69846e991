// Server-side request forgery guard of the webhooks (contract section 16): a receiver's host
// is resolved before each connection (at creation and at every attempt, so that a name that
// starts pointing at a private address is refused), and an address that is loopback,
// private, link-local, unique-local, multicast or unspecified is refused unless it lies in
// WEBHOOK_ALLOWED_NETWORKS. The connection then goes to the address that was checked, never
// to a second resolution of the name.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressMatcher } from './address-ranges.js';

// "This network", private, carrier-grade NAT, loopback, link-local, benchmarking-free
// reserved, multicast and broadcast ranges; their IPv6 counterparts. IPv4-mapped IPv6
// addresses are matched as IPv4 by addressMatcher.
const REFUSED_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/128',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
];

export type Resolution = { readonly address: string; readonly family: 4 | 6 } | { readonly refused: string } | { readonly unresolved: true };

export interface AddressGuard {
  /** The address to connect to for `hostname`, or why there is none. */
  resolve(hostname: string): Promise<Resolution>;
}

export function addressGuard(allowedNetworks: readonly string[]): AddressGuard {
  const refused = addressMatcher(REFUSED_RANGES);
  const allowed = addressMatcher(allowedNetworks);
  const permitted = (address: string): boolean => !refused(address) || allowed(address);
  return {
    async resolve(hostname) {
      // `[::1]` in a URL's host.
      const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
      let addresses: { address: string; family: number }[];
      if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
      else {
        try {
          addresses = await lookup(host, { all: true, verbatim: true });
        } catch {
          return { unresolved: true };
        }
      }
      if (addresses.length === 0) return { unresolved: true };
      // Every address the name gives must be permitted: a client could otherwise be steered
      // to the one that is not.
      const bad = addresses.find((entry) => !permitted(entry.address));
      if (bad !== undefined) return { refused: bad.address };
      const first = addresses[0]!;
      return { address: first.address, family: first.family === 6 ? 6 : 4 };
    },
  };
}
