// Hardening: allowed_ips are read into integers by a parser of the service's own (thousands of
// tokens of 100 ranges each are loaded at start), so its answers are checked here against
// ipaddr.js, the library that reads every other address of the service, on random ranges and
// addresses near them, IPv4, IPv6 and IPv4-mapped.
// @backend-independent (runs once, not once per backend): compares two parsers in memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ipaddr from 'ipaddr.js';
import { addressMatcher, canonicalRange } from '../src/auth/address-ranges.js';

let seed = 12345;
const random = (below: number): number => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % below;
};

function randomIpv4(): string {
  return [random(256), random(256), random(256), random(256)].join('.');
}

function randomIpv6(): string {
  // Few distinct groups, so that ranges and addresses share prefixes and `::` appears.
  return Array.from({ length: 8 }, () => ['0', '0', '1', 'db8', 'ffff', random(65536).toString(16)][random(6)]).join(':');
}

/** What ipaddr.js says, the way the service read ranges before. */
function reference(ranges: readonly string[], address: string): boolean {
  let client: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    client = ipaddr.process(address);
  } catch {
    return false;
  }
  return ranges.some((range) => {
    const [network, bits] = ipaddr.parseCIDR(range);
    return network.kind() === client.kind() && client.match(network, bits);
  });
}

test('allowed_ips match exactly as ipaddr.js matches them', () => {
  for (let round = 0; round < 300; round++) {
    const ranges: string[] = [];
    const addresses: string[] = ['garbage', '::ffff:10.0.0.1', '::1', '127.0.0.1'];
    for (let i = 0; i < 6; i++) {
      const v4 = random(2) === 0;
      const address = v4 ? randomIpv4() : randomIpv6();
      const bits = random(v4 ? 33 : 129);
      const network = (v4 ? ipaddr.IPv4 : ipaddr.IPv6).networkAddressFromCIDR(`${address}/${bits}`).toString();
      const range = canonicalRange(`${network}/${bits}`);
      assert.ok(range !== undefined, `${network}/${bits}`);
      ranges.push(range);
      addresses.push(address, v4 ? `::ffff:${address}` : address.replace(/[0-9a-f]+$/, 'ffff'));
    }
    const matches = addressMatcher(ranges);
    for (const address of addresses) assert.equal(matches(address), reference(ranges, address), `${address} in ${ranges.join(', ')}`);
  }
});

test('ranges in other spellings than the canonical one are still read', () => {
  const matches = addressMatcher(['::ffff:a00:0/104', '2001:DB8::/32', '0.0.0.0/0']);
  assert.equal(matches('2001:db8:1::1'), true);
  assert.equal(matches('192.0.2.1'), true);
  assert.equal(matches('2001:db9::1'), false);
  const v6only = addressMatcher(['::/0']);
  assert.equal(v6only('2001:db9::1'), true);
  assert.equal(v6only('10.0.0.1'), false);
});
