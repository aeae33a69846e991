// The rate limit counts a client without an accepted token by its network (issue
// "Hardening"): an IPv4 address, but an IPv6 /64, which one host may own whole and pick
// addresses from at will; an IPv4-mapped IPv6 address is the IPv4 address it maps.
// @backend-independent (runs once, not once per backend): the budgets are in the instance's memory, keyed by address; the database only answers the 401s, which every backend's tests cover.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';
import { TAGS, secret } from './support/tokens.js';

describe('rate limit per network, behind a trusted proxy (TRUST_PROXY=loopback)', () => {
  const ADMIN = secret('adm');
  const server = serverPerSuite({ env: { API_TOKENS: `ops=admin:${ADMIN}`, TRUST_PROXY: 'loopback', RATE_LIMIT_PER_MINUTE: '3' } });
  const status = async (address: string) => (await server.request('GET', TAGS, { headers: { 'x-forwarded-for': address } })).status;

  test('addresses of one IPv6 /64 share one budget', async () => {
    const seen: number[] = [];
    for (let i = 1; i <= 6; i++) seen.push(await status(`2001:db8:1:2::${i.toString(16)}:${i}`));
    assert.deepEqual(seen, [401, 401, 401, 429, 429, 429]);
    assert.equal(await status('2001:db8:1:2:ffff:ffff:ffff:ffff'), 429, 'the last address of the /64');
    assert.equal(await status('2001:db8:1:3::1'), 401, 'the next /64 has a budget of its own');
  });

  test('IPv4 addresses are counted one by one, an IPv4-mapped address as its IPv4 address', async () => {
    assert.deepEqual([await status('198.51.100.7'), await status('::ffff:198.51.100.7'), await status('198.51.100.7')], [401, 401, 401]);
    assert.equal(await status('::ffff:c633:6407'), 429, '198.51.100.7, written in hexadecimal');
    assert.equal(await status('198.51.100.8'), 401, 'the next address has a budget of its own');
  });
});
