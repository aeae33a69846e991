// The webhooks' server-side request forgery guard (contract section 16): with the default
// WEBHOOK_ALLOWED_NETWORKS (none), a URL whose host is or resolves to loopback, private,
// link-local, unique-local, multicast or unspecified is refused at creation (400 URL_REFUSED,
// nothing stored, answered at once: no connection is tried), and the host is resolved again at
// every attempt: a webhook made where loopback was allowed gets a failed attempt, and no
// request, once the service runs without that allowance.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServer } from './support/server.js';
import { bearer, secret } from './support/tokens.js';
import { until } from './support/until.js';
import { startReceiver } from './support/webhook-receiver.js';

const ADMIN = secret('adm');
const HOOKS = '/en/api/webhooks';

test('refused at creation: loopback, 10.0.0.0/8, 169.254.169.254, [::1], a name resolving to 127.0.0.1, fc00::/7, multicast', async () => {
  const server = await startServer({ env: { API_TOKENS: `root=admin:${ADMIN}` } });
  try {
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:9/hook', 'http://localhost:9/hook', 'https://[fd00::1]/hook', 'http://224.0.0.1/hook', 'http://0.0.0.0/hook']) {
      const started = Date.now();
      const reply = await server.request('POST', HOOKS, { headers: bearer(ADMIN), body: { name: 'forged', url } });
      assert.equal(reply.status, 400, `${url}: ${reply.text}`);
      assert.equal(reply.body.code, 'URL_REFUSED');
      assert.ok(Date.now() - started < 2000, `${url}: refused before any connection`);
    }
    assert.equal((await server.request('GET', HOOKS, { headers: bearer(ADMIN) })).body.total, 0, 'nothing stored');
  } finally {
    await server.stop();
    await server.cleanup();
  }
});

test('the host is resolved at every attempt: loopback allowed when made, refused at the attempt once it is not', async () => {
  const receiver = await startReceiver();
  const first = await startServer({ env: { API_TOKENS: `root=admin:${ADMIN}`, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128' } });
  let second: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const created = await first.request('POST', HOOKS, { headers: bearer(ADMIN), body: { name: 'local', url: receiver.url.replace('127.0.0.1', 'localhost') } });
    assert.equal(created.status, 201, created.text);
    await first.stop();
    second = await startServer({ dataDir: first.dataDir, database: first.database, env: { API_TOKENS: `root=admin:${ADMIN}`, WEBHOOK_POLL_MS: '50' } });
    const tag = await second.request('POST', '/en/api/config/tags', { headers: bearer(ADMIN), body: { name: 'after', color: '#000000', background: '#ffffff' } });
    assert.equal(tag.status, 201, tag.text);
    let delivery: { status: string; attempts: { error: string | null; status_code: number | null }[] } | undefined;
    await until('a refused attempt', async () => {
      delivery = (await second!.request('GET', `${HOOKS}/${created.body.id}/deliveries`, { headers: bearer(ADMIN) })).body.items[0];
      return (delivery?.attempts.length ?? 0) >= 1;
    });
    assert.equal(delivery!.status, 'retrying');
    assert.match(delivery!.attempts[0]!.error ?? '', /^refused: the host resolves to (127\.0\.0\.1|::1)/);
    assert.equal(delivery!.attempts[0]!.status_code, null);
    assert.equal(receiver.received.length, 0, 'no request reached the receiver');
    const ping = await second.request('POST', `${HOOKS}/${created.body.id}/ping`, { headers: bearer(ADMIN) });
    assert.equal(ping.body.status, 'failed');
    assert.equal(receiver.received.length, 0);
  } finally {
    await second?.stop();
    await second?.cleanup();
    // The database is the first server's: dropped by its cleanup.
    await first.cleanup();
    await receiver.close();
  }
});
