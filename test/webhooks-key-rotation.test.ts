// `npm run rotate-secret-key` re-seals the webhooks' signing secrets and header values too
// (contract sections 5 and 16): after a rotation the service starts with the new key, and a
// ping is still signed with the webhook's own secret and carries its header.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startServer } from './support/server.js';
import { bearer, secret } from './support/tokens.js';
import { startReceiver } from './support/webhook-receiver.js';

const ADMIN = secret('adm');

test('rotate-secret-key re-seals webhook secrets and header values', { timeout: 60_000 }, async () => {
  const receiver = await startReceiver();
  const oldKey = randomBytes(32).toString('hex');
  const newKey = randomBytes(32).toString('hex');
  const env = { API_TOKENS: `root=admin:${ADMIN}`, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
  const first = await startServer({ env: { ...env, SECRET_KEY: oldKey } });
  try {
    const created = await first.request('POST', '/en/api/webhooks', { headers: bearer(ADMIN), body: { name: 'kept', url: receiver.url, headers: { 'X-Receiver-Key': 'kept-value-5678' } } });
    assert.equal(created.status, 201, created.text);
    await first.request('POST', `/en/api/webhooks/${created.body.id}/rotate-secret`, { headers: bearer(ADMIN) });
    assert.equal(await first.stop(), 0);
    const run = spawnSync(process.execPath, [resolve(import.meta.dirname, '../dist/rotate-secret-key-cli.js')], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: first.database.url, SECRET_KEY: oldKey, NEW_SECRET_KEY: newKey },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /3 secret\(s\) re-sealed/);
    const second = await startServer({ database: first.database, dataDir: first.dataDir, env: { ...env, SECRET_KEY: newKey } });
    try {
      const ping = await second.request('POST', `/en/api/webhooks/${created.body.id}/ping`, { headers: bearer(ADMIN) });
      assert.equal(ping.body.status, 'succeeded', ping.text);
      const got = receiver.received.at(-1)!;
      assert.equal(got.headers['x-receiver-key'], 'kept-value-5678');
      const headers = { 'webhook-id': String(got.headers['webhook-id']), 'webhook-timestamp': String(got.headers['webhook-timestamp']), 'webhook-signature': String(got.headers['webhook-signature']) };
      new Webhook(created.body.secret).verify(got.body, headers);
    } finally {
      await second.stop();
    }
  } finally {
    await first.cleanup();
    await receiver.close();
  }
});
