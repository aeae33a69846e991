// Dry runs of the webhook writes (contract section 12 on section 16's endpoints): create, PATCH,
// DELETE, rotate-secret and redeliver with ?dry_run=true run every check and answer as the real
// request would (no id assigned: null; no secret made: null), with `Dry-Run: true`; nothing is
// stored, no change is recorded, no delivery is made. A ping is a sending: it takes no dry run.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';
import { bearer, secret } from './support/tokens.js';
import { until } from './support/until.js';
import { receiverPerSuite } from './support/webhook-receiver.js';

const ADMIN = secret('adm');
const HOOKS = '/en/api/webhooks';
const TAGS = '/en/api/config/tags';

describe('webhook dry runs', () => {
  const server = serverPerSuite({
    env: { API_TOKENS: `root=admin:${ADMIN}`, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '50' },
  });
  const receiver = receiverPerSuite();
  const admin = bearer(ADMIN);
  const changes = async (): Promise<number> => {
    const reply = await server.request('GET', '/en/api/changes?resource=webhooks', { headers: admin });
    assert.equal(reply.status, 200, reply.text);
    return reply.body.items.length as number;
  };

  test('a dry-run create checks everything, answers as the real one with id and secret null, stores nothing, records nothing', async () => {
    const body = { name: 'dry', url: receiver.url, resources: ['tags'], headers: { 'X-Api-Key': 'dry-run-header-value' } };
    const dry = await server.request('POST', `${HOOKS}?dry_run=true`, { headers: admin, body });
    assert.equal(dry.status, 201, dry.text);
    assert.equal(dry.headers.get('dry-run'), 'true');
    assert.equal(dry.headers.get('location'), null, 'no entry to point at');
    assert.equal(dry.body.id, null);
    assert.equal(dry.body.secret, null, 'no secret shown that is not stored');
    assert.equal(dry.body.item.id, null);
    assert.equal(dry.body.item.name, 'dry');
    assert.deepEqual(dry.body.item.headers, ['X-Api-Key']);
    assert.ok(!dry.text.includes('dry-run-header-value'));
    assert.equal((await server.request('GET', HOOKS, { headers: admin })).body.total, 0, 'nothing stored');
    assert.equal(await changes(), 0, 'no change record');

    // The checks run: a bad field is 422, an unsafe address 400, a taken name 409, as for real.
    const invalid = await server.request('POST', `${HOOKS}?dry_run=true`, { headers: admin, body: { name: 'x', url: 'ftp://example.com/' } });
    assert.equal(invalid.status, 422, invalid.text);
    assert.equal(invalid.headers.get('dry-run'), null);
    const refused = await server.request('POST', `${HOOKS}?dry_run=true`, { headers: admin, body: { name: 'x', url: 'http://10.1.2.3/hook' } });
    assert.equal(refused.status, 400, refused.text);
    const real = await server.request('POST', HOOKS, { headers: admin, body });
    assert.equal(real.status, 201, real.text);
    const clash = await server.request('POST', `${HOOKS}?dry_run=true`, { headers: admin, body });
    assert.equal(clash.status, 409, clash.text);
    const bad = await server.request('POST', `${HOOKS}?dry_run=maybe`, { headers: admin, body: { ...body, name: 'other' } });
    assert.equal(bad.status, 400, bad.text);
    assert.equal((await server.request('GET', HOOKS, { headers: admin })).body.total, 1);
    assert.equal(await changes(), 1, 'only the real create is recorded');
  });

  test('dry-run PATCH, DELETE and rotate-secret change nothing, record nothing, and keep delivering', async () => {
    const created = await server.request('POST', HOOKS, { headers: admin, body: { name: 'kept', url: receiver.url, resources: ['tags'] } });
    assert.equal(created.status, 201, created.text);
    const { id, secret: signing } = created.body as { id: number; secret: string };
    const path = `${HOOKS}/${id}`;
    const read = await server.request('GET', path, { headers: admin });
    const etag = read.headers.get('etag')!;
    const recorded = await changes();

    const patch = await server.request('PATCH', `${path}?dry_run=true`, { headers: admin, body: { enabled: false, name: 'renamed' } });
    assert.equal(patch.status, 200, patch.text);
    assert.equal(patch.headers.get('dry-run'), 'true');
    assert.equal(patch.body.id, id);
    assert.equal(patch.body.updated, true);
    assert.equal(patch.body.item.enabled, false, 'the answer the real PATCH would give');
    assert.equal(patch.body.item.name, 'renamed');
    const stale = await server.request('PATCH', `${path}?dry_run=true`, { headers: { ...admin, 'if-match': '"stale"' }, body: { enabled: false } });
    assert.equal(stale.status, 412, stale.text);

    const removed = await server.request('DELETE', `${path}?dry_run=true`, { headers: admin });
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.headers.get('dry-run'), 'true');
    assert.deepEqual(removed.body, { id, deleted: true, mode: 'hard' });
    assert.equal((await server.request('DELETE', `${HOOKS}/999999?dry_run=true`, { headers: admin })).status, 404);

    const rotated = await server.request('POST', `${path}/rotate-secret?dry_run=true`, { headers: admin });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.headers.get('dry-run'), 'true');
    assert.deepEqual(rotated.body, { id, secret: null });
    assert.equal((await server.request('POST', `${HOOKS}/999999/rotate-secret?dry_run=true`, { headers: admin })).status, 404);

    const after = await server.request('GET', path, { headers: admin });
    assert.equal(after.headers.get('etag'), etag, 'the webhook is as it was');
    assert.equal(after.body.item.enabled, true);
    assert.equal(after.body.item.name, 'kept');
    assert.equal(await changes(), recorded, 'no change record');

    // Still there, still enabled, still signed with the secret it had: the next change is
    // delivered, with one signature (no rotation happened).
    const tag = await server.request('POST', TAGS, { headers: admin, body: { name: 'after-dry-runs' } });
    assert.equal(tag.status, 201, tag.text);
    await until('a delivery', () => receiver.received.some((received) => received.body.includes('after-dry-runs')));
    const got = receiver.received.find((received) => received.body.includes('after-dry-runs'))!;
    assert.equal(String(got.headers['webhook-signature']).split(' ').length, 1, 'no second signature: the secret was not rotated');
    assert.ok(signing.startsWith('whsec_'));
  });

  test('a dry-run redeliver queues nothing; a dry-run write makes no delivery; a ping takes no dry run', async () => {
    const created = await server.request('POST', HOOKS, { headers: admin, body: { name: 'redeliver', url: receiver.url, resources: ['tags'] } });
    const id = created.body.id as number;
    const tag = await server.request('POST', TAGS, { headers: admin, body: { name: 'to-redeliver' } });
    assert.equal(tag.status, 201, tag.text);
    let delivery: { id: number; status: string; attempts: unknown[] } | undefined;
    await until('the delivery succeeded', async () => {
      delivery = (await server.request('GET', `${HOOKS}/${id}/deliveries?status=succeeded`, { headers: admin })).body.items[0];
      return delivery !== undefined;
    });
    const arrived = receiver.received.length;

    const dry = await server.request('POST', `${HOOKS}/${id}/deliveries/${delivery!.id}/redeliver?dry_run=true`, { headers: admin });
    assert.equal(dry.status, 202, dry.text);
    assert.equal(dry.headers.get('dry-run'), 'true');
    assert.equal(dry.body.status, 'pending', 'the answer the real redeliver would give');
    assert.equal((await server.request('POST', `${HOOKS}/${id}/deliveries/999999/redeliver?dry_run=true`, { headers: admin })).status, 404);

    // A dry-run write of a subscribed resource gives no delivery either.
    const dryTag = await server.request('POST', `${TAGS}?dry_run=true`, { headers: admin, body: { name: 'never-delivered' } });
    assert.equal(dryTag.status, 201, dryTag.text);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(receiver.received.length, arrived, 'nothing sent: the redeliver was a dry run, and so was the write');
    const stored = (await server.request('GET', `${HOOKS}/${id}/deliveries`, { headers: admin })).body.items;
    assert.equal(stored.length, 1);
    assert.equal(stored[0].status, 'succeeded', 'the delivery is as it was');
    assert.equal(stored[0].attempts.length, 1);

    const ping = await server.request('POST', `${HOOKS}/${id}/ping?dry_run=true`, { headers: admin });
    assert.equal(ping.status, 400, ping.text);
    assert.equal(ping.body.code, 'BAD_QUERY');
    assert.equal(receiver.received.length, arrived, 'a refused ping sends nothing');
  });
});
