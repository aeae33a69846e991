// A receiver that refuses every connection (nothing listens on its loopback port): one attempt
// probes it at a time, its other due deliveries are held (not attempted, no attempt invented
// for them) until a probe reaches it, then every held delivery goes out once; the probes'
// failures still disable the webhook after WEBHOOK_DISABLE_AFTER_HOURS; held deliveries older
// than the retry window are `failed` by the expiry, with no attempt made for them.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { runStatement } from './support/database-statement.js';
import { serverPerSuite } from './support/server.js';
import { bearer, secret } from './support/tokens.js';
import { until } from './support/until.js';

const ADMIN = secret('adm');
const HOOKS = '/en/api/webhooks';
const TAGS = '/en/api/config/tags';
const admin = bearer(ADMIN);
const PROBE_MS = 300;
const BACKLOG = 30;

/** A loopback port where nothing listens (connections refused). */
async function closedPort(): Promise<number> {
  const probe = createNetServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = (probe.address() as AddressInfo);
  probe.close();
  await once(probe, 'close');
  return port;
}

/** A receiver answering 204 on `port`, recording each webhook-id it gets. */
async function listenOn(port: number): Promise<{ ids: string[]; server: Server }> {
  const ids: string[] = [];
  const server = createServer((request, response) => {
    request.resume().on('end', () => {
      ids.push(String(request.headers['webhook-id']));
      response.writeHead(204).end();
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return { ids, server };
}

interface Shown {
  id: number;
  status: string;
  attempts: { error: string | null; status_code: number | null }[];
}

describe('a receiver that refuses every connection', () => {
  const server = serverPerSuite({
    env: {
      API_TOKENS: `root=admin:${ADMIN}`,
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_RETRY_SCHEDULE_MS: String(PROBE_MS),
      WEBHOOK_CONCURRENCY: '8',
    },
  });

  async function deliveries(hook: number): Promise<Shown[]> {
    const shown: Shown[] = [];
    let after = '';
    for (;;) {
      const page = await server.request('GET', `${HOOKS}/${hook}/deliveries?limit=100${after}`, { headers: admin });
      assert.equal(page.status, 200, page.text);
      shown.push(...(page.body.items as Shown[]));
      if (page.body.next === null || page.body.next === undefined) return shown;
      after = `&after=${page.body.next}`;
    }
  }

  test('is probed by one attempt at a time, its backlog held, then all delivered once when it answers', async () => {
    const port = await closedPort();
    const created = await server.request('POST', HOOKS, { headers: admin, body: { name: 'dead', url: `http://127.0.0.1:${port}/hook`, resources: ['tags'] } });
    assert.equal(created.status, 201, created.text);
    const hook = created.body.id as number;
    const bulk = await server.request('POST', TAGS, { headers: admin, body: Array.from({ length: BACKLOG }, (_, i) => ({ name: `dead-${i}`, color: '#000000', background: '#ffffff' })) });
    assert.equal(bulk.status, 201, bulk.text);
    const attempted = async (): Promise<number> => (await deliveries(hook)).reduce((sum, delivery) => sum + delivery.attempts.length, 0);
    await until('a refused attempt', async () => (await attempted()) >= 1, 5000);
    // Ten probe intervals: without the hold each of the 30 would be retried every interval
    // (about 300 attempts); held, the first batch (the webhook's share, 2) and then one probe
    // per interval.
    await new Promise((resolve) => setTimeout(resolve, 10 * PROBE_MS));
    const held = await deliveries(hook);
    const attempts = held.flatMap((delivery) => delivery.attempts);
    assert.equal(held.length, BACKLOG);
    assert.ok(attempts.length <= 2 + 12, `one probe per interval (${attempts.length} attempts in ${10 * PROBE_MS} ms)`);
    // No attempt is invented for a held delivery: every one recorded is a refused connection.
    for (const attempt of attempts) assert.deepEqual([attempt.error, attempt.status_code], ['ECONNREFUSED', null]);
    assert.ok(held.every((delivery) => delivery.status === 'pending' || delivery.status === 'retrying'));
    assert.ok(held.filter((delivery) => delivery.attempts.length === 0).length >= BACKLOG - 14, 'most held with no attempt');
    const hookNow = (await server.request('GET', `${HOOKS}/${hook}`, { headers: admin })).body.item;
    assert.notEqual(hookNow.failing_since, null, 'the probes keep the webhook failing');
    const metrics = await server.request('GET', '/metrics', { headers: admin });
    assert.match(metrics.text, new RegExp(`^webhook_deliveries_pending ${BACKLOG}$`, 'm'));

    // The receiver comes back: the next probe reaches it and the whole backlog follows.
    const back = await listenOn(port);
    try {
      await until('every held delivery delivered', () => new Set(back.ids).size >= BACKLOG, 5000);
      await until('every delivery succeeded', async () => (await deliveries(hook)).every((delivery) => delivery.status === 'succeeded'), 5000);
      assert.equal(back.ids.length, BACKLOG, 'each delivered once');
      const after = (await server.request('GET', `${HOOKS}/${hook}`, { headers: admin })).body.item;
      assert.equal(after.failing_since, null);
    } finally {
      back.server.closeAllConnections();
      back.server.close();
    }
  });
});

describe('a refusing receiver held past WEBHOOK_DISABLE_AFTER_HOURS', () => {
  const server = serverPerSuite({
    env: {
      API_TOKENS: `root=admin:${ADMIN}`,
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_RETRY_SCHEDULE_MS: '100',
      WEBHOOK_CONCURRENCY: '8',
      // 1.8 s.
      WEBHOOK_DISABLE_AFTER_HOURS: '0.0005',
    },
  });

  test('is disabled by its probes\' failures, its deliveries kept', async () => {
    const created = await server.request('POST', HOOKS, { headers: admin, body: { name: 'gone', url: `http://127.0.0.1:${await closedPort()}/hook`, resources: ['tags'] } });
    assert.equal(created.status, 201, created.text);
    const bulk = await server.request('POST', TAGS, { headers: admin, body: Array.from({ length: 10 }, (_, i) => ({ name: `gone-${i}`, color: '#000000', background: '#ffffff' })) });
    assert.equal(bulk.status, 201, bulk.text);
    let hook: { enabled: boolean; disabled_reason: string | null } | undefined;
    await until('disabled', async () => {
      hook = (await server.request('GET', `${HOOKS}/${created.body.id}`, { headers: admin })).body.item;
      return hook?.enabled === false;
    }, 15_000);
    assert.match(hook!.disabled_reason ?? '', /WEBHOOK_DISABLE_AFTER_HOURS/);
    const page = await server.request('GET', `${HOOKS}/${created.body.id}/deliveries?limit=100`, { headers: admin });
    assert.equal(page.body.items.length, 10);
    assert.ok((page.body.items as Shown[]).every((delivery) => delivery.status === 'pending' || delivery.status === 'retrying'), 'none lost, none given up');
  });
});

describe('deliveries held past the retry window', () => {
  // The expiry looks every minute; the test cannot wait for minutes.
  const EXPIRE_EVERY_MS = 200;
  const server = serverPerSuite({
    env: {
      API_TOKENS: `root=admin:${ADMIN}`,
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_POLL_MS: '50',
      // No probe during the test (the next is ten minutes away): only the expiry can end the
      // held deliveries, not a probe's attempt past the window.
      WEBHOOK_RETRY_SCHEDULE_MS: '600000',
      WEBHOOK_CONCURRENCY: '8',
    },
    app: { webhookExpireHeldEveryMs: EXPIRE_EVERY_MS },
  });

  /** A webhook to a closed port with `count` tag changes to deliver, once its first attempt
   * was refused (it is held from then on): its id, its deliveries as the API shows them, and
   * a step that moves their creation two days back, past the one-day window. */
  async function heldWebhook(name: string, count: number): Promise<{ hook: number; page: () => Promise<Shown[]>; ageTwoDays: () => Promise<unknown> }> {
    const created = await server.request('POST', HOOKS, { headers: admin, body: { name, url: `http://127.0.0.1:${await closedPort()}/hook`, resources: ['tags'] } });
    assert.equal(created.status, 201, created.text);
    const hook = created.body.id as number;
    const bulk = await server.request('POST', TAGS, { headers: admin, body: Array.from({ length: count }, (_, i) => ({ name: `${name}-${i}`, color: '#000000', background: '#ffffff' })) });
    assert.equal(bulk.status, 201, bulk.text);
    const page = async (): Promise<Shown[]> => (await server.request('GET', `${HOOKS}/${hook}/deliveries?limit=100`, { headers: admin })).body.items;
    await until('a refused attempt', async () => (await page()).some((delivery) => delivery.attempts.length > 0), 5000);
    const ageTwoDays = () => runStatement(server.database, 'UPDATE webhook_deliveries SET created_at = ? WHERE webhook_id = ?', [new Date(Date.now() - 2 * 86_400_000).toISOString(), hook]);
    return { hook, page, ageTwoDays };
  }

  test('are failed by the expiry, no attempt made or counted for them', async () => {
    const { page, ageTwoDays } = await heldWebhook('old', 6);
    // The webhook is held now. Its changes made as if two days ago: past the one-day window.
    await ageTwoDays();
    let shown: Shown[] = [];
    await until('every held delivery failed', async () => {
      shown = await page();
      return shown.length === 6 && shown.every((delivery) => delivery.status === 'failed');
    }, 5000);
    // The first batch was attempted (the webhook's share, 2) before the hold; the others failed
    // with no attempt, as held deliveries are none.
    const attempts = shown.flatMap((delivery) => delivery.attempts);
    assert.ok(attempts.length <= 2, `no probe made (${attempts.length} attempts)`);
    for (const attempt of attempts) assert.deepEqual([attempt.error, attempt.status_code], ['ECONNREFUSED', null]);
    assert.ok(shown.filter((delivery) => delivery.attempts.length === 0).length >= 4, 'failed without an attempt');
    const metrics = await server.request('GET', '/metrics', { headers: admin });
    assert.match(metrics.text, /^webhook_delivery_attempts_total\{result="failed"\} 0$/m, 'an expiry is no attempt');
    assert.match(metrics.text, /^webhook_deliveries_pending 0$/m);
  });

  test('of a webhook disabled while held are not given up: it is held no more, its deliveries wait', async () => {
    const { hook, page, ageTwoDays } = await heldWebhook('paused', 4);
    const disabled = await server.request('PATCH', `${HOOKS}/${hook}`, { headers: admin, body: { enabled: false } });
    assert.equal(disabled.status, 200, disabled.text);
    await ageTwoDays();
    // Several expiry checks: a hold kept would give them up, as the test above shows.
    await new Promise((resolve) => setTimeout(resolve, 5 * EXPIRE_EVERY_MS));
    const shown = await page();
    assert.equal(shown.length, 4);
    assert.ok(shown.every((delivery) => delivery.status === 'pending' || delivery.status === 'retrying'), `waiting: ${shown.map((delivery) => delivery.status).join(', ')}`);
  });
});
