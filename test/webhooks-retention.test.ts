// Delivery records are kept WEBHOOK_DELIVERY_RETENTION_DAYS (contract section 16), made a few
// seconds here: a finished delivery older than that goes, a recent one stays, and one still
// waiting for its next attempt stays whatever its age.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';
import { bearer, secret } from './support/tokens.js';
import { until } from './support/until.js';
import { receiverPerSuite } from './support/webhook-receiver.js';

const ADMIN = secret('adm');
const HOOKS = '/en/api/webhooks';
const TAGS = '/en/api/config/tags';
const admin = bearer(ADMIN);
const RETENTION_MS = 6000;

describe('delivery retention', () => {
  const server = serverPerSuite({
    env: {
      API_TOKENS: `root=admin:${ADMIN}`,
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_POLL_MS: '50',
      // A retrying delivery waits a minute: it is still waiting when its records are old.
      WEBHOOK_RETRY_SCHEDULE_MS: '60000',
      WEBHOOK_DELIVERY_RETENTION_DAYS: String(RETENTION_MS / 86_400_000),
    },
  });
  const healthy = receiverPerSuite();
  const failing = receiverPerSuite(() => ({ status: 500 }));

  test('old finished deliveries go, recent ones and those still retrying stay', async () => {
    const ok = await server.request('POST', HOOKS, { headers: admin, body: { name: 'kept-a-while', url: healthy.url, resources: ['tags'] } });
    const bad = await server.request('POST', HOOKS, { headers: admin, body: { name: 'still-retrying', url: failing.url, resources: ['tags'] } });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(bad.status, 201, bad.text);
    const deliveries = async (id: number) => (await server.request('GET', `${HOOKS}/${id}/deliveries?limit=100`, { headers: admin })).body.items as { id: number; change_id: number; status: string }[];

    const old = await server.request('POST', TAGS, { headers: admin, body: { name: 'old-change', color: '#000000', background: '#ffffff' } });
    assert.equal(old.status, 201, old.text);
    await until('the first delivery succeeded', async () => (await deliveries(ok.body.id)).some((item) => item.status === 'succeeded'));
    await until('the failing one is retrying', async () => (await deliveries(bad.body.id)).some((item) => item.status === 'retrying'));
    const [oldDelivery] = await deliveries(ok.body.id);
    await new Promise((resolve) => setTimeout(resolve, RETENTION_MS / 2));

    const recent = await server.request('POST', TAGS, { headers: admin, body: { name: 'recent-change', color: '#000000', background: '#ffffff' } });
    assert.equal(recent.status, 201, recent.text);
    await until('the second delivery succeeded', async () => (await deliveries(ok.body.id)).filter((item) => item.status === 'succeeded').length === 2);

    let left: { id: number; status: string }[] = [];
    await until('the old delivery removed', async () => {
      left = await deliveries(ok.body.id);
      return !left.some((item) => item.id === oldDelivery!.id);
    }, RETENTION_MS * 3, 100);
    assert.equal(left.length, 1, 'the recent delivery is still there when the old one went');
    assert.notEqual(left[0]!.id, oldDelivery!.id);
    const waiting = await deliveries(bad.body.id);
    assert.ok(waiting.some((item) => item.status === 'retrying'), 'a delivery waiting for its next attempt is kept, however old');
  });
});
