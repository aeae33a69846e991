// How tokens come to be and reach every instance (contract section 14): the first admin from
// `npm run token:create` or from an anonymous POST while no token exists; access on as soon
// as one exists; the token key checked at start; a revocation seen by a second instance on the
// same database within 5 s; last uses saved on stop; the client address from X-Forwarded-For
// only behind a trusted proxy (TRUST_PROXY), for allowed_ips and the rate limit, over IPv4
// and IPv6.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { serverPerSuite, startServer } from './support/server.js';
import { TAGS, TOKENS, TOKEN_SHAPE, assertHoldsNone, bearer, createToken, secret, tokenCreateCli, within } from './support/tokens.js';

describe('the first token', () => {
  test('npm run token:create prints an admin token once; the running service turns access on within seconds', async () => {
    const server = await startServer();
    try {
      assert.equal((await server.request('GET', TAGS)).status, 200, 'anonymous while no token exists');
      const run = tokenCreateCli(server, ['--name', 'first-admin', '--scope', 'admin', '--expires', '90d']);
      assert.equal(run.status, 0, run.stderr);
      const token = run.stdout.trim();
      assert.match(token, TOKEN_SHAPE);
      assert.match(run.stderr, /"first-admin" created, scope admin, expires 20\d\d-/);
      assert.ok(!run.stderr.includes(token));
      const waited = await within(5000, async () => (await server.request('GET', TAGS)).status === 401);
      assert.ok(waited < 5000);
      const listed = await server.request('GET', TOKENS, { headers: bearer(token) });
      assert.equal(listed.status, 200);
      const expires = Date.parse(listed.body.items[0].expires_at);
      assert.ok(Math.abs(expires - (Date.now() + 90 * 86_400_000)) < 120_000, 'expires in 90 days');

      const refusals: [string[], RegExp][] = [
        [['--name', 'first-admin', '--scope', 'read'], /name: Another entry already uses this value/],
        [['--name', 'x', '--scope', 'owner'], /scope: must be one of: read, write, admin/],
        [['--name', 'x', '--scope', 'read', '--expires', '2001-01-01T00:00:00Z'], /expires_at: must be in the future/],
        [['--name', 'x', '--scope', 'read', '--allowed-ips', '10.0.0.1/8'], /allowed_ips:/],
        [['--scope', 'read'], /usage: npm run token:create/],
      ];
      for (const [args, message] of refusals) {
        const refused = tokenCreateCli(server, args);
        assert.equal(refused.status, 1, args.join(' '));
        assert.match(refused.stderr, message);
        assert.equal(refused.stdout, '');
      }
      const other = tokenCreateCli(server, ['--name', 'x', '--scope', 'read'], { TOKEN_KEY: randomBytes(32).toString('hex') });
      assert.equal(other.status, 1);
      assert.match(other.stderr, /not the one the stored API tokens were made with/);
      assertHoldsNone(await server.dump(), [token], 'the database');

      // Restarted with another token key, the service would refuse every token: it refuses to start.
      assert.equal(await server.stop(), 0);
      const key = randomBytes(32).toString('base64');
      await assert.rejects(startServer({ database: server.database, dataDir: server.dataDir, env: { TOKEN_KEY: key } }), /TOKEN_KEY or TOKEN_KEY_FILE/);
    } finally {
      await server.stop();
      await server.cleanup();
    }
  });

  test('while no token exists, an anonymous POST may create the first one; then anonymous access is over', async () => {
    const server = await startServer();
    try {
      const first = await createToken(server, undefined, { name: 'bootstrap', scope: 'admin' });
      const refused = await server.request('GET', TAGS);
      assert.equal(refused.status, 401);
      assert.equal((await server.request('GET', TAGS, { headers: bearer(first.token) })).status, 200);
      // Revoking the last token opens anonymous access again, on a loopback address only.
      assert.equal((await server.request('DELETE', `${TOKENS}/${first.id}`, { headers: bearer(first.token) })).status, 200);
      assert.equal((await server.request('GET', TAGS)).status, 200);
    } finally {
      await server.stop();
      await server.cleanup();
    }
  });
});

describe('two instances on one database', () => {
  test('a token made on one works on the other; revoked on one, it is refused there at once and on the other within 5 s', async () => {
    const ADMIN = secret('adm');
    const env = { API_TOKENS: `ops=admin:${ADMIN}` };
    const first = await startServer({ env });
    const second = await startServer({ env, database: first.database, dataDir: first.dataDir });
    try {
      const made = await createToken(first, ADMIN, { name: 'roaming', scope: 'read' });
      await within(5000, async () => (await second.request('GET', TAGS, { headers: bearer(made.token) })).status === 200);
      assert.equal((await first.request('DELETE', `${TOKENS}/${made.id}`, { headers: bearer(ADMIN) })).status, 200);
      assert.equal((await first.request('GET', TAGS, { headers: bearer(made.token) })).status, 401, 'at once where it was revoked');
      const waited = await within(5000, async () => (await second.request('GET', TAGS, { headers: bearer(made.token) })).status === 401);
      assert.ok(waited <= 5000, `seen after ${waited} ms`);

      // last_used_at: saved when an instance stops, then read by the other.
      const used = await createToken(first, ADMIN, { name: 'used', scope: 'read' });
      await within(5000, async () => (await second.request('GET', TAGS, { headers: bearer(used.token) })).status === 200);
      assert.equal(await second.stop(), 0);
      const item = (await first.request('GET', `${TOKENS}/${used.id}`, { headers: bearer(ADMIN) })).body.item;
      assert.ok(item.last_used_at !== null && Date.now() - Date.parse(item.last_used_at) < 10_000, JSON.stringify(item));
    } finally {
      await second.stop();
      await first.stop();
      await first.cleanup();
    }
  });
});

describe('behind a trusted proxy (TRUST_PROXY=loopback)', () => {
  const ADMIN = secret('adm');
  const server = serverPerSuite({ env: { API_TOKENS: `ops=admin:${ADMIN}`, TRUST_PROXY: 'loopback', RATE_LIMIT_PER_MINUTE: '3' } });

  test('allowed_ips reads the client address from X-Forwarded-For, IPv4 and IPv6', async () => {
    const remote = await createToken(server, ADMIN, { name: 'remote', scope: 'read', allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] });
    const from = async (address: string | undefined) =>
      (await server.request('GET', TAGS, { headers: { ...bearer(remote.token), ...(address === undefined ? {} : { 'x-forwarded-for': address }) } })).status;
    assert.equal(await from('10.1.2.3'), 200);
    assert.equal(await from('203.0.113.9, 10.200.0.1'), 200, 'the nearest hop the proxy saw');
    assert.equal(await from('2001:db8:0:1::5'), 200);
    assert.equal(await from('2001:db9::5'), 403);
    assert.equal(await from('192.0.2.1'), 403);
    assert.equal(await from(undefined), 403, '127.0.0.1 itself is not in the ranges');
  });

  test('the rate limit counts each forwarded address on its own', async () => {
    const statuses = async (address: string, count: number) => {
      const seen: number[] = [];
      for (let i = 0; i < count; i++) seen.push((await server.request('GET', TAGS, { headers: { 'x-forwarded-for': address } })).status);
      return seen;
    };
    assert.deepEqual(await statuses('198.51.100.1', 4), [401, 401, 401, 429]);
    assert.deepEqual(await statuses('198.51.100.2', 1), [401]);
  });
});

describe('over IPv6 (HOST=::1)', () => {
  const ADMIN = secret('adm');
  const server = serverPerSuite({ env: { HOST: '::1', API_TOKENS: `ops=admin:${ADMIN}` } });

  test('a token bound to ::1/128 is served, one bound to 127.0.0.0/8 is 403', async () => {
    assert.match(server.url, /^http:\/\/\[::1\]:/);
    const six = await createToken(server, ADMIN, { name: 'six', scope: 'read', allowed_ips: ['::1'] });
    const four = await createToken(server, ADMIN, { name: 'four', scope: 'read', allowed_ips: ['127.0.0.0/8'] });
    assert.equal((await server.request('GET', TAGS, { headers: bearer(six.token) })).status, 200);
    assert.equal((await server.request('GET', TAGS, { headers: bearer(four.token) })).status, 403);
  });
});
