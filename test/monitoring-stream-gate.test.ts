// Contract section 17, "streamed … within the service's memory bound", over HTTP against the
// started service: a monitoring answer read by a client that stops reading pauses the walk of
// the servers (back-pressure: a server deleted meanwhile, past the paused point, is not in
// the answer when the client reads on), and it holds a slot of the heavy-work gate until its
// last byte or its connection is gone, so that answers beyond HEAVY_QUERY_CONCURRENCY are
// refused 503 with Retry-After instead of piling up in memory; the shipped inventory script
// asks again after the Retry-After it is given.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';
import { ADMIN, SD, TOKEN_ENV } from './support/monitoring-fleet.js';
import { bearer } from './support/tokens.js';

// One heavy answer at a time and no queue: a second one is refused at once.
const server = serverPerSuite({ env: { ...TOKEN_ENV, HEAVY_QUERY_CONCURRENCY: '1', HEAVY_QUERY_QUEUE: '0' } });
// About 535 bytes of target each: some 16 MB of answer, more than the loopback socket's
// buffers and the service's batch of 2,000 servers hold, so that a client that stops reading
// leaves the walk paused well before its end. The inventory shows less of a server: 168 bytes
// with a short name, 5 MB for 30,000, about what the buffers take once they have grown, so
// that it was at times written whole to a reader that had stopped (200 where 503 was due, at
// load 4-20); with the long host names, which it shows twice, 394 bytes: 12 MB.
const SERVERS = 30_000;
const LONG_NAME = 'x'.repeat(110);
const BULK = 1000;
let firstId = 0;
let lastId = 0;

/** A GET of `path` whose body is read up to its first chunk, then no more until `resume`. */
function stalledRead(path: string): Promise<{ response: IncomingMessage; resume: () => Promise<string> }> {
  return new Promise((done, fail) => {
    const outgoing = httpRequest(new URL(`${server.url}${path}`), { headers: bearer(ADMIN) }, (response) => {
      const chunks: Buffer[] = [];
      response.once('data', (chunk: Buffer) => {
        chunks.push(chunk);
        response.pause();
        done({
          response,
          resume: () =>
            new Promise((ended, broken) => {
              response.on('data', (more: Buffer) => chunks.push(more));
              response.once('end', () => ended(Buffer.concat(chunks).toString('utf8')));
              response.once('error', broken);
              response.resume();
            }),
        });
      });
    });
    outgoing.on('error', fail);
    outgoing.end();
  });
}

/** Asks for the answer until it is not 503 (the slot is freed once the stream has closed). */
async function untilServed(timeoutMs = 5000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await server.request('GET', `${SD}?id_client=1`, { headers: bearer(ADMIN) });
    if (reply.status !== 503 || Date.now() > deadline) return reply.status;
    await sleep(50);
  }
}

describe('monitoring answers: back-pressure and the heavy-work gate', () => {
  before(async () => {
    for (let made = 0; made < SERVERS; made += BULK) {
      const body = Array.from({ length: BULK }, (_, i) => ({ ip: `127.1.${((made + i) >> 8) & 255}.${(made + i) & 255}`, port: 20000 + ((made + i) >> 16), hostname: `stream-${made + i}-${LONG_NAME}` }));
      const reply = await server.request('POST', '/en/api/config/servers', { body, headers: bearer(ADMIN) });
      assert.equal(reply.status, 201, reply.text);
      if (made === 0) firstId = reply.body.items[0].id;
      lastId = reply.body.items[BULK - 1].id;
    }
  });

  test('a reader that stops pauses the walk, and holds the one slot: another answer is 503 meanwhile, served once it ends', async () => {
    const stalled = await stalledRead(SD);
    assert.equal(stalled.response.statusCode, 200);
    // Time for the service to fill the socket's buffers and stop there.
    await sleep(1000);
    const refused = await server.request('GET', SD, { headers: bearer(ADMIN) });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.code, 'UNAVAILABLE');
    assert.equal(refused.headers.get('retry-after'), '1');
    // The last server goes while the walk is paused before it: an answer read whole before
    // the client stopped would still show it.
    const deleted = await server.request('DELETE', `/en/api/config/servers/${lastId}`, { headers: bearer(ADMIN) });
    assert.equal(deleted.status, 200, deleted.text);
    const targets = JSON.parse(await stalled.resume()) as { labels: Record<string, string> }[];
    const ids = targets.map((target) => Number(target.labels.__meta_pmacontrol_server_id));
    assert.equal(ids[0], firstId);
    assert.equal(ids.length, SERVERS - 1, 'every server but the one deleted while the walk was paused');
    assert.ok(!ids.includes(lastId), 'the server deleted while the walk was paused is not in the answer');
    assert.equal(await untilServed(), 200, 'the slot is freed once the answer has ended');
  });

  test('a reader that goes away mid-answer frees the slot', async () => {
    const stalled = await stalledRead('/en/api/inventory/ansible');
    await sleep(200);
    assert.equal((await server.request('GET', SD, { headers: bearer(ADMIN) })).status, 503, 'the inventory holds the slot');
    stalled.response.destroy();
    assert.equal(await untilServed(), 200);
  });

  test('the inventory script, refused 503 while another answer holds the slot, asks again after Retry-After', async () => {
    const stalled = await stalledRead(SD);
    const script = resolve(import.meta.dirname, '../contrib/ansible-inventory.mjs');
    const started = Date.now();
    const run = new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, [script, '--list'], { env: { PATH: process.env.PATH ?? '', CONFIG_API_URL: server.url, CONFIG_API_TOKEN: ADMIN, CONFIG_API_TIMEOUT_MS: '20000' }, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
        done({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
      );
    });
    // Its first request is refused at once (no queue); it waits a second and asks again.
    await sleep(1500);
    stalled.response.destroy();
    const result = await run;
    assert.equal(result.code, 0, result.stderr);
    assert.ok(Date.now() - started >= 1000, 'it was refused first and waited');
    assert.equal(JSON.parse(result.stdout).all.hosts.length, SERVERS - 1);
  });
});
