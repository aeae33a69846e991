// Webhooks through the API (contract section 16) with real receivers on loopback (allowed
// through WEBHOOK_ALLOWED_NETWORKS): create shows the secret once, reads never show it nor the
// headers' values; every delivery is verified with the `standardwebhooks` package (a tampered
// body and a wrong secret fail that check); retries, Retry-After, redeliver, ping, rotation
// (two signatures for a day), auto-disable, deliveries by status with a cursor; bad input is
// 422 and stores nothing; admin only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { serverPerSuite } from './support/server.js';
import { bearer, secret } from './support/tokens.js';
import { until } from './support/until.js';
import { receiverPerSuite, type Received } from './support/webhook-receiver.js';

const ADMIN = secret('adm');
const WRITE = secret('wrt');
const HOOKS = '/en/api/webhooks';
const SERVERS = '/en/api/config/servers';
const TAGS = '/en/api/config/tags';

function verify(secretText: string, received: Received): unknown {
  return new Webhook(secretText).verify(received.body, {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  });
}

describe('webhooks', () => {
  const server = serverPerSuite({
    env: { API_TOKENS: `root=admin:${ADMIN},ci=write:${WRITE}`, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE_MS: '200,300,400', WEBHOOK_POLL_MS: '50' },
  });
  const receiver = receiverPerSuite();
  const admin = bearer(ADMIN);
  const create = async (body: Record<string, unknown>) => {
    const reply = await server.request('POST', HOOKS, { headers: admin, body });
    assert.equal(reply.status, 201, reply.text);
    return reply.body as { id: number; secret: string; item: Record<string, unknown> };
  };

  test('create shows the secret once; reads show the header names only; every delivery verifies with standardwebhooks', async () => {
    const created = await create({ name: 'all-tags', url: receiver.url, resources: ['tags'], headers: { 'X-Api-Key': 'receiver-key-value-1234' } });
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(created.item.headers, ['X-Api-Key']);
    assert.equal(created.item.enabled, true);
    assert.equal(created.item.failing_since, null);
    const read = await server.request('GET', `${HOOKS}/${created.id}`, { headers: admin });
    assert.equal(read.status, 200);
    assert.ok(!read.text.includes(created.secret) && !read.text.includes('receiver-key-value-1234'));
    const list = await server.request('GET', HOOKS, { headers: admin });
    assert.equal(list.body.items.length, 1);

    const tag = await server.request('POST', TAGS, { headers: admin, body: { name: 'hooked', color: '#112233', background: '#445566' } });
    assert.equal(tag.status, 201, tag.text);
    await until('a delivery', () => receiver.received.length >= 1);
    const got = receiver.received[0]!;
    const payload = verify(created.secret, got) as { type: string; data: { resource: string; action: string; entry_id: number } };
    assert.equal(payload.type, 'tags.create');
    assert.equal(payload.data.entry_id, tag.body.id);
    assert.equal(got.headers['x-api-key'], 'receiver-key-value-1234');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.throws(() => verify(created.secret, { ...got, body: got.body.replace('hooked', 'hacked') }), 'a tampered body fails');
    assert.throws(() => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, got), 'a wrong secret fails');

    const deliveries = await server.request('GET', `${HOOKS}/${created.id}/deliveries`, { headers: admin });
    assert.equal(deliveries.status, 200, deliveries.text);
    await until('the delivery recorded', async () => (await server.request('GET', `${HOOKS}/${created.id}/deliveries?status=succeeded`, { headers: admin })).body.items.length === 1);

    // The secret and header values are in no change record and not in clear in the database.
    const changes = await server.request('GET', '/en/api/changes?resource=webhooks', { headers: admin });
    assert.equal(changes.status, 200, changes.text);
    assert.ok(changes.body.items.some((record: { action: string; entry_id: number }) => record.action === 'create' && record.entry_id === created.id), 'the creation is recorded');
    assert.ok(!changes.text.includes(created.secret.slice(6)) && !changes.text.includes('receiver-key-value-1234'));
    const dump = await server.dump();
    assert.ok(!dump.includes(created.secret.slice(6)) && !dump.includes('receiver-key-value-1234'), 'nothing in clear in the database');
    assert.ok(!server.logs().includes(created.secret.slice(6)) && !server.logs().includes('receiver-key-value-1234'), 'nothing in the logs');
    const metrics = await server.request('GET', '/metrics', { headers: admin });
    assert.match(metrics.text, /^webhook_delivery_attempts_total\{result="succeeded"\} [1-9]/m);
    assert.match(metrics.text, /^webhook_deliveries_pending 0$/m);
    assert.match(metrics.text, /^webhook_oldest_pending_delivery_age_seconds 0$/m);
    await server.request('DELETE', `${HOOKS}/${created.id}`, { headers: admin });
  });

  test('a failing receiver: retried on schedule (Retry-After honoured), then succeeds; redeliver is the same webhook-id; ping', async () => {
    receiver.received.length = 0;
    receiver.answer = (_request, index) => (index === 0 ? { status: 503, headers: { 'retry-after': '1' } } : index < 3 ? { status: 500, body: 'down' } : { status: 200, body: 'ok' });
    const created = await create({ name: 'retried', url: receiver.url, resources: ['tags'], actions: ['create'] });
    await server.request('POST', TAGS, { headers: admin, body: { name: 'retry-me', color: '#112233', background: '#445566' } });
    await until('four attempts', () => receiver.received.length >= 4, 20_000);
    const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    assert.equal(ids.size, 1, 'one webhook-id for every attempt');
    assert.ok(receiver.received[1]!.at - receiver.received[0]!.at >= 900, 'Retry-After: 1 waited about a second');
    let delivery: { id: number; status: string; attempts: { status_code: number; response: string }[] } | undefined;
    await until('succeeded', async () => {
      delivery = (await server.request('GET', `${HOOKS}/${created.id}/deliveries`, { headers: admin })).body.items[0];
      return delivery?.status === 'succeeded';
    });
    assert.deepEqual(delivery!.attempts.map((a) => a.status_code), [503, 500, 500, 200]);
    assert.equal(delivery!.attempts[3]!.response, 'ok');

    const redelivered = await server.request('POST', `${HOOKS}/${created.id}/deliveries/${delivery!.id}/redeliver`, { headers: admin });
    assert.equal(redelivered.status, 202, redelivered.text);
    await until('redelivered', () => receiver.received.length >= 5);
    assert.equal(receiver.received[4]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);

    const ping = await server.request('POST', `${HOOKS}/${created.id}/ping`, { headers: admin });
    assert.equal(ping.status, 200, ping.text);
    assert.equal(ping.body.type, 'webhook.ping');
    assert.equal(ping.body.status, 'succeeded');
    assert.equal((verify(created.secret, receiver.received.at(-1)!) as { type: string }).type, 'webhook.ping');
    await server.request('DELETE', `${HOOKS}/${created.id}`, { headers: admin });
  });

  test('rotate-secret: both signatures for a day, each verifies with its own secret', async () => {
    receiver.answer = () => ({ status: 204 });
    const created = await create({ name: 'rotated', url: receiver.url });
    const rotated = await server.request('POST', `${HOOKS}/${created.id}/rotate-secret`, { headers: admin });
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.secret, created.secret);
    const ping = await server.request('POST', `${HOOKS}/${created.id}/ping`, { headers: admin });
    assert.equal(ping.body.status, 'succeeded');
    const got = receiver.received.at(-1)!;
    assert.equal(String(got.headers['webhook-signature']).split(' ').length, 2);
    verify(rotated.body.secret, got);
    verify(created.secret, got);
    await server.request('DELETE', `${HOOKS}/${created.id}`, { headers: admin });
  });

  test('deliveries newest first, by status, with a cursor', async () => {
    receiver.answer = () => ({ status: 204 });
    const created = await create({ name: 'paged', url: receiver.url, resources: ['tags'] });
    for (let i = 0; i < 5; i++) await server.request('POST', TAGS, { headers: admin, body: { name: `paged-${i}`, color: '#112233', background: '#445566' } });
    await until('five succeeded', async () => (await server.request('GET', `${HOOKS}/${created.id}/deliveries?status=succeeded&limit=100`, { headers: admin })).body.items.length === 5);
    const first = await server.request('GET', `${HOOKS}/${created.id}/deliveries?limit=3`, { headers: admin });
    assert.equal(first.body.items.length, 3);
    assert.ok(first.body.items[0].id > first.body.items[1].id);
    assert.equal(typeof first.body.next, 'string');
    const second = await server.request('GET', `${HOOKS}/${created.id}/deliveries?limit=3&after=${first.body.next}`, { headers: admin });
    assert.equal(second.body.items.length, 2);
    assert.equal(second.body.next, null);
    assert.equal((await server.request('GET', `${HOOKS}/${created.id}/deliveries?status=failed`, { headers: admin })).body.items.length, 0);
    assert.equal((await server.request('GET', `${HOOKS}/${created.id}/deliveries?status=nope`, { headers: admin })).status, 400);
    await server.request('DELETE', `${HOOKS}/${created.id}`, { headers: admin });
  });

  test('ETag and If-Match as on every entry (section 8): 304 while unchanged, 412 on a stale PATCH or DELETE, a PATCH that changes nothing records nothing', async () => {
    const created = await create({ name: 'tagged', url: receiver.url, resources: ['tags'] });
    const path = `${HOOKS}/${created.id}`;
    const read = await server.request('GET', path, { headers: admin });
    const etag = read.headers.get('etag');
    assert.match(etag ?? '', /^"[^"]+"$/, 'a read carries an ETag');
    const unchanged = await server.request('GET', path, { headers: { ...admin, 'if-none-match': etag! } });
    assert.equal(unchanged.status, 304);
    const list = await server.request('GET', HOOKS, { headers: admin });
    assert.match(list.headers.get('etag') ?? '', /^"[^"]+"$/, 'a list carries an ETag');
    assert.equal((await server.request('GET', HOOKS, { headers: { ...admin, 'if-none-match': list.headers.get('etag')! } })).status, 304);

    const changed = await server.request('PATCH', path, { headers: { ...admin, 'if-match': etag! }, body: { actions: ['create'] } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.id, created.id);
    assert.equal(changed.body.resource, 'webhooks');
    assert.equal(changed.body.updated, true);
    const newTag = changed.headers.get('etag');
    assert.ok(newTag !== null && newTag !== etag, 'a change gives a new ETag');
    assert.equal((await server.request('GET', path, { headers: admin })).headers.get('etag'), newTag, 'the PATCH answer carries the tag a read then gives');
    assert.equal((await server.request('GET', HOOKS, { headers: { ...admin, 'if-none-match': list.headers.get('etag')! } })).status, 200, 'the list changed too');

    const stale = await server.request('PATCH', path, { headers: { ...admin, 'if-match': etag! }, body: { name: 'lost-update' } });
    assert.equal(stale.status, 412, stale.text);
    assert.equal(stale.body.code, 'PRECONDITION_FAILED');
    assert.equal((await server.request('GET', path, { headers: admin })).body.item.name, 'tagged', 'a refused PATCH changes nothing');
    const staleDelete = await server.request('DELETE', path, { headers: { ...admin, 'if-match': etag! } });
    assert.equal(staleDelete.status, 412, staleDelete.text);
    assert.equal((await server.request('GET', path, { headers: admin })).status, 200, 'a refused DELETE removes nothing');

    const records = async () => (await server.request('GET', `/en/api/changes?resource=webhooks&entry_id=${created.id}`, { headers: admin })).body.items.length as number;
    const before = await records();
    const same = await server.request('PATCH', path, { headers: { ...admin, 'if-match': newTag! }, body: { actions: ['create'], name: 'tagged' } });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.headers.get('etag'), newTag, 'a PATCH that changes nothing keeps the ETag');
    assert.equal(same.body.item.updated_at, changed.body.item.updated_at);
    assert.equal(await records(), before, 'and records no change');

    const removed = await server.request('DELETE', path, { headers: { ...admin, 'if-match': newTag! } });
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await server.request('GET', path, { headers: admin })).status, 404);
  });

  test('bad input is 422 naming the field, and stores nothing; a write token is 403', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ name: 'x', url: 'ftp://example.com/' }, 'url'],
      [{ name: 'x', url: 'not a url' }, 'url'],
      [{ name: 'x', url: receiver.url, resources: ['servers', 'nonsense'] }, 'resources'],
      [{ name: 'x', url: receiver.url, actions: ['explode'] }, 'actions'],
      [{ name: 'x', url: receiver.url, headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v'])) }, 'headers'],
      [{ name: 'x', url: receiver.url, headers: { 'Bad Name': 'v' } }, 'headers'],
      [{ name: 'x', url: receiver.url, headers: { 'Webhook-Signature': 'v1,forged' } }, 'headers'],
      [{ name: 'x', url: receiver.url, headers: { 'Content-Type': 'text/plain' } }, 'headers'],
    ];
    for (const [body, field] of bad) {
      const reply = await server.request('POST', HOOKS, { headers: admin, body });
      assert.equal(reply.status, 422, `${JSON.stringify(body)}: ${reply.text}`);
      assert.ok(reply.body.errors.some((error: { field: string }) => error.field === field), reply.text);
    }
    assert.equal((await server.request('GET', HOOKS, { headers: admin })).body.total, 0);
    assert.equal((await server.request('GET', HOOKS, { headers: bearer(WRITE) })).status, 403);
  });
});
