// Anonymous access (no token anywhere, on a loopback HOST) is for the clients of this machine
// only (issue "Hardening"): a reverse proxy on loopback (TRUST_PROXY) must not hand every
// right to the clients it forwards, and a web page whose DNS name was rebound to 127.0.0.1
// must not reach the API through a local browser (the Host header names the page's site).
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { serverPerSuite, type TestServer } from './support/server.js';
import { TAGS, TOKENS } from './support/tokens.js';

const PROBLEM = 'application/problem+json; charset=utf-8';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** A request with a Host header of our choosing (fetch does not let a caller set one). */
function withHost(server: TestServer, method: string, path: string, host: string, body?: unknown): Promise<Answer> {
  const { hostname, port } = new URL(server.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { host, connection: 'close' };
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
  return new Promise((done, fail) => {
    const sent = httpRequest({ host: hostname, port: Number(port), method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') answerHeaders.set(name, value);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        const answer = { status: response.statusCode!, headers: answerHeaders, text, body: parsed };
        server.checkResponse(method, path, answer);
        done(answer);
      });
    });
    sent.on('error', fail);
    sent.end(payload);
  });
}

describe('no token, on loopback, behind a trusted proxy (TRUST_PROXY=loopback)', () => {
  const server = serverPerSuite({ env: { TRUST_PROXY: 'loopback' } });
  const from = (address: string) => ({ 'x-forwarded-for': address });

  test('a forwarded client that is not on loopback gets 401, and cannot mint the first admin token', async () => {
    const minted = await server.request('POST', TOKENS, { body: { name: 'intruder', scope: 'admin' }, headers: from('203.0.113.9') });
    assert.equal(minted.status, 401, minted.text);
    assert.equal(minted.headers.get('content-type'), PROBLEM);
    assert.equal(minted.body.code, 'UNAUTHORIZED');
    assert.equal(minted.body.token, undefined);
    for (const address of ['203.0.113.9', '10.0.0.7', '2001:db8::1', '127.0.0.1, 198.51.100.4']) {
      const read = await server.request('GET', TAGS, { headers: from(address) });
      assert.equal(read.status, 401, address);
      assert.equal(read.body.code, 'UNAUTHORIZED');
      assert.match(read.headers.get('www-authenticate') ?? '', /^Bearer realm="config-api"/);
    }
    // Still no token: a client of this machine is still served anonymously.
    assert.equal((await server.request('GET', TAGS)).status, 200);
    assert.equal((await server.request('GET', TAGS, { headers: from('::1') })).status, 200, 'a forwarded loopback client');
    assert.equal((await server.request('GET', TAGS, { headers: from('127.0.0.5') })).status, 200);
  });

  test('public paths stay public for a forwarded client', async () => {
    for (const path of ['/en/api/openApi', '/healthz', '/readyz']) {
      assert.equal((await server.request('GET', path, { headers: from('203.0.113.9') })).status, 200, path);
    }
  });
});

describe('no token, on loopback: the Host header must name this machine', () => {
  const server = serverPerSuite();

  test('a foreign Host (DNS rebinding) gets 403 FORBIDDEN and changes nothing', async () => {
    const port = new URL(server.url).port;
    for (const host of ['rebind.example', `rebind.example:${port}`, '127.0.0.1.rebind.example', 'localhost.rebind.example', '10.0.0.1', '0.0.0.0', '[::2]']) {
      const read = await withHost(server, 'GET', TAGS, host);
      assert.equal(read.status, 403, host);
      assert.equal(read.headers.get('content-type'), PROBLEM);
      assert.equal(read.body.code, 'FORBIDDEN');
      assert.match(read.body.detail, /Host/);
    }
    const write = await withHost(server, 'POST', TAGS, 'rebind.example', { name: 'rebound' });
    assert.equal(write.status, 403);
    const mint = await withHost(server, 'POST', TOKENS, `rebind.example:${port}`, { name: 'rebound', scope: 'admin' });
    assert.equal(mint.status, 403);
    assert.equal((await server.request('GET', TAGS)).body.total, 0, 'nothing was created');
    assert.equal((await server.request('GET', TOKENS)).body.total, 0, 'no token was created');
  });

  test('loopback names and addresses, with or without a port, are served', async () => {
    const port = new URL(server.url).port;
    for (const host of ['localhost', `localhost:${port}`, 'LocalHost', '127.0.0.1', `127.0.0.1:${port}`, '127.1.2.3', '[::1]', `[::1]:${port}`]) {
      assert.equal((await withHost(server, 'GET', TAGS, host)).status, 200, host);
    }
  });

  test('the public paths and /metrics answer whatever the Host', async () => {
    for (const path of ['/en/api/openApi', '/healthz', '/readyz', '/metrics']) {
      assert.equal((await withHost(server, 'GET', path, 'rebind.example')).status, 200, path);
    }
  });
});
