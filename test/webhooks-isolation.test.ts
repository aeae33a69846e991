// One webhook's receiver delays neither the others nor the API (contract section 16): a
// receiver that hangs until the time-out and one that refuses every connection, beside a
// healthy one that gets each change at once while API requests answer quickly; and a webhook
// whose deliveries all fail for WEBHOOK_DISABLE_AFTER_HOURS (made small here) is disabled with
// a reason, and enabling it again resumes its deliveries.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';
import { bearer, secret } from './support/tokens.js';
import { until } from './support/until.js';
import { receiverPerSuite, startReceiver } from './support/webhook-receiver.js';

const ADMIN = secret('adm');
const HOOKS = '/en/api/webhooks';
const TAGS = '/en/api/config/tags';
const admin = bearer(ADMIN);

/** A loopback port where nothing listens (connections refused). */
async function closedPort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

describe('isolation and auto-disable', () => {
  const server = serverPerSuite({
    env: {
      API_TOKENS: `root=admin:${ADMIN}`,
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_RETRY_SCHEDULE_MS: '100',
      WEBHOOK_CONCURRENCY: '8',
      // 1.8 s.
      WEBHOOK_DISABLE_AFTER_HOURS: '0.0005',
    },
  });
  const healthy = receiverPerSuite();
  const hanging = receiverPerSuite(() => 'hang');

  test('a hanging and a refusing receiver delay neither a healthy one nor the API', async () => {
    const refused = `http://127.0.0.1:${await closedPort()}/hook`;
    for (const [name, url] of [['hangs', hanging.url], ['refuses', refused], ['healthy', healthy.url]] as const) {
      const reply = await server.request('POST', HOOKS, { headers: admin, body: { name, url, resources: ['tags'] } });
      assert.equal(reply.status, 201, reply.text);
    }
    const slowest: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = Date.now();
      const reply = await server.request('POST', TAGS, { headers: admin, body: { name: `iso-${i}`, color: '#000000', background: '#ffffff' } });
      assert.equal(reply.status, 201);
      slowest.push(Date.now() - started);
      const read = Date.now();
      assert.equal((await server.request('GET', TAGS, { headers: admin })).status, 200);
      slowest.push(Date.now() - read);
      // Each change reaches the healthy receiver well within the hanging one's time-out.
      await until(`change ${i} at the healthy receiver`, () => healthy.received.length >= i + 1, 1500);
    }
    assert.ok(Math.max(...slowest) < 1000, `API requests answered quickly (slowest ${Math.max(...slowest)} ms)`);
    assert.ok(hanging.received.length >= 1, 'the hanging receiver was reached');
    // Within one time-out, the hanging webhook holds at most its share of attempts (a quarter
    // of WEBHOOK_CONCURRENCY).
    const first = hanging.received[0]!.at;
    const atOnce = hanging.received.filter((got) => got.at < first + 2900).length;
    assert.ok(atOnce <= 2, `at most its share of attempts at once (${atOnce})`);
  });

  test('every delivery failing for WEBHOOK_DISABLE_AFTER_HOURS disables the webhook; enabling it again resumes', async () => {
    const failing = await startReceiver();
    failing.answer = () => ({ status: 500 });
    try {
      const created = await server.request('POST', HOOKS, { headers: admin, body: { name: 'fails', url: failing.url, resources: ['tags'] } });
      await server.request('POST', TAGS, { headers: admin, body: { name: 'will-fail', color: '#000000', background: '#ffffff' } });
      let hook: { enabled: boolean; failing_since: string | null; disabled_reason: string | null } | undefined;
      await until('disabled', async () => {
        hook = (await server.request('GET', `${HOOKS}/${created.body.id}`, { headers: admin })).body.item;
        return hook?.enabled === false;
      }, 15_000);
      assert.match(hook!.disabled_reason ?? '', /WEBHOOK_DISABLE_AFTER_HOURS/);
      assert.notEqual(hook!.failing_since, null);
      // The service disabling it is a change like any other: a change record, a new ETag
      // (If-Match with the tag read before is refused), a log line and a metric.
      const changes = await server.request('GET', `/en/api/changes?resource=webhooks&entry_id=${created.body.id}&action=update`, { headers: admin });
      assert.equal(changes.status, 200, changes.text);
      const record = (changes.body.items as { actor: string; before: Record<string, unknown>; after: Record<string, unknown> }[]).find((item) => item.after.enabled === false);
      assert.ok(record !== undefined, `a change record of the auto-disable: ${changes.text}`);
      assert.equal(record.actor, 'service:webhooks');
      assert.equal(record.before.enabled, true);
      assert.match(String(record.after.disabled_reason), /WEBHOOK_DISABLE_AFTER_HOURS/);
      const stale = await server.request('PATCH', `${HOOKS}/${created.body.id}`, { headers: { ...admin, 'if-match': created.headers.get('etag')! }, body: { name: 'renamed' } });
      assert.equal(stale.status, 412, stale.text);
      assert.match(server.logs(), /a webhook was disabled/);
      const metrics = await server.request('GET', '/metrics', { headers: admin });
      assert.match(metrics.text, /^webhooks_auto_disabled_total [1-9]\d*$/m);
      const attemptsWhenDisabled = failing.received.length;
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.ok(failing.received.length <= attemptsWhenDisabled + 1, 'no attempt while disabled');

      failing.answer = () => ({ status: 200 });
      const enabled = await server.request('PATCH', `${HOOKS}/${created.body.id}`, { headers: admin, body: { enabled: true } });
      assert.equal(enabled.status, 200, enabled.text);
      assert.equal(enabled.body.item.disabled_reason, null);
      assert.equal(enabled.body.item.failing_since, null);
      await until('resumed and succeeded', async () => (await server.request('GET', `${HOOKS}/${created.body.id}/deliveries?status=succeeded`, { headers: admin })).body.items.length === 1);
    } finally {
      await failing.close();
    }
  });
});

describe('one webhook\'s backlog takes its share of the slots only', () => {
  const server = serverPerSuite({
    env: { API_TOKENS: `root=admin:${ADMIN}`, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '4000', WEBHOOK_CONCURRENCY: '8' },
  });
  const healthy = receiverPerSuite();
  const hanging = receiverPerSuite(() => 'hang');

  test('twenty due deliveries of a hanging receiver, claimed first, leave the other webhooks their slots', async () => {
    const backlog = await server.request('POST', HOOKS, { headers: admin, body: { name: 'backlog', url: hanging.url, resources: ['tags'] } });
    assert.equal(backlog.status, 201, backlog.text);
    // Twenty deliveries for the hanging receiver, all due before any of the healthy one's.
    const bulk = await server.request('POST', TAGS, { headers: admin, body: Array.from({ length: 20 }, (_, i) => ({ name: `backlog-${i}`, color: '#000000', background: '#ffffff' })) });
    assert.equal(bulk.status, 201, bulk.text);
    await until('the hanging receiver reached', () => hanging.received.length >= 1, 3000);
    const reply = await server.request('POST', HOOKS, { headers: admin, body: { name: 'healthy', url: healthy.url, resources: ['tags'] } });
    assert.equal(reply.status, 201, reply.text);
    const started = Date.now();
    assert.equal((await server.request('POST', TAGS, { headers: admin, body: { name: 'after-backlog', color: '#000000', background: '#ffffff' } })).status, 201);
    // Well within the hanging attempts' time-out (4 s): the healthy webhook had a free slot.
    await until('the healthy receiver got its change', () => healthy.received.length >= 1, 2500);
    assert.ok(Date.now() - started < 2500);
    // WEBHOOK_CONCURRENCY 8: a webhook's share is 2 attempts at once.
    assert.ok(hanging.received.length <= 2, `the hanging receiver held its share only (${hanging.received.length} at once)`);
  });
});
