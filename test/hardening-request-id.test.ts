// A client's X-Request-Id reaches the change records and the log lines only if it is short and
// plain (1-128 of A-Z a-z 0-9 . _ : -); any other is replaced by one the service makes (issue
// "Hardening"): a 10,000-character id, a tab, a quote, bytes past ASCII, a control character.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changesAfter } from './support/change-stream.js';
import { logLines } from './support/log-lines.js';
import { rawExchange } from './support/raw-http.js';
import { serverPerSuite } from './support/server.js';
import { TAGS } from './support/tokens.js';

const GENERATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('X-Request-Id from the client', () => {
  const server = serverPerSuite();

  test('an over-long or unsafe id is replaced in the answer, the change record and the logs', async () => {
    const unsafe = ['r'.repeat(10_000), 'r'.repeat(129), 'tab\there', 'quote","actor":"root', 'caf\u00e9-id'];
    let name = 0;
    for (const sent of unsafe) {
      const before = (await changesAfter(server)).at(-1)?.id ?? 0;
      const reply = await server.request('POST', TAGS, { body: { name: `rid-${++name}` }, headers: { 'x-request-id': sent } });
      assert.equal(reply.status, 201, JSON.stringify(sent.slice(0, 20)));
      const answered = reply.headers.get('x-request-id') ?? '';
      assert.match(answered, GENERATED, 'a generated id is answered');
      const records = await changesAfter(server, before);
      assert.equal(records.length, 1);
      assert.equal(records[0]!.request_id, answered, 'the change record carries the generated id');
      assert.notEqual(records[0]!.request_id, sent);
    }
    const logged = logLines(server.logs()).map((line) => String(line.reqId ?? ''));
    assert.ok(logged.length > 0);
    for (const id of logged) assert.ok(id.length <= 128 && /^[A-Za-z0-9._:-]*$/.test(id), `a logged reqId: ${id.slice(0, 40)}`);
    assert.ok(!server.logs().includes('r'.repeat(129)), 'the long id is in the logs');
  });

  test('a control character in the header: the request is refused, nothing is written', async () => {
    const before = (await changesAfter(server)).at(-1)?.id ?? 0;
    const body = JSON.stringify({ name: 'rid-control' });
    const request = `POST ${TAGS} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: bell\x07id\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    const result = await rawExchange(server.url, request, 5000).result;
    assert.equal(result.outcome, 'answered');
    assert.equal(result.status, 400);
    assert.equal(result.headers?.['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal((await changesAfter(server, before)).length, 0);
  });

  test('a plain id is kept, up to 128 characters', async () => {
    const sent = `r:${'x'.repeat(126)}`;
    const before = (await changesAfter(server)).at(-1)?.id ?? 0;
    const reply = await server.request('POST', TAGS, { body: { name: 'rid-kept' }, headers: { 'x-request-id': sent } });
    assert.equal(reply.headers.get('x-request-id'), sent);
    assert.equal((await changesAfter(server, before))[0]!.request_id, sent);
  });
});
