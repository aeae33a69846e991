// The console's webhook pages (contract section 16, admin tokens) in headless Chromium: create
// (the signing secret shown once, never kept by the page), disable and enable, a delivery with
// its attempts after a change, redeliver (202) and ping; a write token is told that webhooks
// need an admin token. The receiver is a local HTTP server on loopback, allowed through
// WEBHOOK_ALLOWED_NETWORKS. Written against section 16 as the contract states it: it passes
// once the webhooks API (branch `webhooks`) is merged.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { closeConsoleBrowser, openConsole, screenshots, skipWithoutChromium } from './support/console-browser.js';
import { startServer, type TestServer } from './support/server.js';
import { BACKEND } from './support/test-database.js';

const skip = BACKEND !== 'sqlite' ? `the console's webhook pages run on SQLite (TEST_DATABASE=${BACKEND})` : skipWithoutChromium;
const ADMIN = 'console-webhook-admin-0123456789';
const WRITER = 'console-webhook-writer-0123456789';

describe('the console’s webhook pages', { skip }, () => {
  let server: TestServer;
  let receiver: Server;
  let receiverUrl = '';
  const received: string[] = [];
  let answer = 500;
  before(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push(body);
        response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer === 200 ? 'ok' : 'not now');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    server = await startServer({ env: { API_TOKENS: `ops=admin:${ADMIN},dev=write:${WRITER}`, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' } });
  });
  after(async () => {
    await closeConsoleBrowser();
    await server?.stop();
    await server?.cleanup();
    receiver?.close();
  });

  test('create (secret shown once), disable and enable, deliveries with attempts, redeliver, ping', async () => {
    const session = await openConsole(server, '#/webhooks', { token: ADMIN, expectedStatuses: [] });
    const { page } = session;
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('console-hook');
    await page.getByLabel('URL', { exact: true }).fill(receiverUrl);
    await page.getByRole('checkbox', { name: 'servers' }).check();
    await page.getByRole('button', { name: 'Create' }).click();
    const secret = page.getByLabel('Signing secret: copy it now, it is shown this once.');
    await secret.waitFor();
    assert.match(await secret.inputValue(), /^whsec_/);
    const shown = await secret.inputValue();
    await screenshots(page, 'webhooks-secret');
    await page.getByRole('button', { name: 'I have kept it' }).click();
    await secret.waitFor({ state: 'detached' });
    const kept = (await page.evaluate('document.documentElement.outerHTML + JSON.stringify(Object.assign({}, sessionStorage)) + JSON.stringify(Object.assign({}, localStorage))')) as string;
    assert.ok(!kept.includes(shown), 'the secret is gone from the page and was never stored');

    const row = page.locator('table.webhooks tbody tr').first();
    await row.getByRole('button', { name: /Disable/ }).click();
    await row.getByRole('button', { name: /Enable/ }).waitFor();
    await row.getByRole('button', { name: /Enable/ }).click();
    await row.getByRole('button', { name: /Disable/ }).waitFor();
    await screenshots(page, 'webhooks');

    // A change the webhook subscribes to: a delivery, failing at first (500).
    await server.request('POST', '/en/api/config/servers', { headers: { authorization: `Bearer ${ADMIN}` }, body: { ip: '192.0.2.200' } });
    await row.getByRole('link', { name: 'console-hook' }).click();
    const delivery = page.locator('ol.deliveries > li').first();
    for (let tries = 0; tries < 40 && (await delivery.locator('tbody tr').count()) === 0; tries++) {
      await page.waitForTimeout(250);
      await page.reload();
    }
    await delivery.getByText('servers.create').waitFor();
    assert.match(await delivery.locator('tbody tr').first().innerText(), /500/);
    answer = 200;
    await delivery.getByRole('button', { name: /Redeliver/ }).click();
    await page.getByText('Queued again.').waitFor();
    await page.getByRole('button', { name: 'Send a ping' }).click();
    await page.getByText(/^Ping: /).waitFor();
    await screenshots(page, 'webhook-deliveries');
    assert.ok(received.some((body) => body.includes('webhook.ping')), 'the receiver got the ping');
    await session.finish();
  });

  test('a write token is told that webhooks need an admin token', async () => {
    const session = await openConsole(server, '#/webhooks', { token: WRITER, expectedStatuses: [403] });
    await session.page.getByText('Webhooks need an admin token.').waitFor();
    await session.finish();
  });
});
