// What Node's HTTP parser refuses before any route (issue "Hardening"): a malformed request
// line or header, headers over the limit, a method it does not know, a request that does not
// arrive in time. Each is answered problem+json with a code, like every other error, and the
// raw request Node hands over (its Authorization header, its body) never reaches a log line,
// even at LOG_LEVEL=trace.
// @backend-independent (runs once, not once per backend): every request but one is refused by
// Node's parser before any route or database; the one accepted (a 401 for an unknown token) is
// there for its log line, and the 401 itself is tested on every backend by security.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { logLines, waitForLogs, type LogLine } from './support/log-lines.js';
import { rawExchange, type RawResult } from './support/raw-http.js';
import { serverPerSuite } from './support/server.js';
import { bearer, secret } from './support/tokens.js';

const PROBLEM = 'application/problem+json; charset=utf-8';
const TAGS = '/en/api/config/tags';

/** The request as sent: Node's parser reads it in one packet, headers and body. */
function malformed(requestLine: string, headers: string, body = ''): string {
  return `${requestLine}\r\nHost: 127.0.0.1\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A log line as text, with any serialized Buffer ({type: 'Buffer', data: [...]}) read back. */
function decoded(line: LogLine): string {
  return JSON.stringify(line, (_key, value: unknown) => {
    const buffer = value as { type?: unknown; data?: unknown };
    return buffer !== null && typeof buffer === 'object' && buffer.type === 'Buffer' && Array.isArray(buffer.data) ? Buffer.from(buffer.data as number[]).toString('latin1') : value;
  });
}

describe('requests refused by the HTTP parser, at LOG_LEVEL=trace', () => {
  const ADMIN = secret('adm');
  const server = serverPerSuite({ env: { API_TOKENS: `ops=admin:${ADMIN}`, LOG_LEVEL: 'trace', HEADERS_TIMEOUT_MS: '500', REQUEST_TIMEOUT_MS: '1000' } });
  const send = async (request: string): Promise<RawResult> => rawExchange(server.url, request, 5000).result;

  function assertProblem(result: RawResult, status: number, code: string): any {
    assert.equal(result.outcome, 'answered');
    assert.equal(result.status, status);
    assert.equal(result.headers?.['content-type'], PROBLEM);
    // raw-http reads bytes as latin1; the body is UTF-8.
    const body = JSON.parse(Buffer.from(result.body ?? '', 'latin1').toString('utf8'));
    assert.equal(body.status, status);
    assert.equal(body.code, code);
    assert.equal(body.type, 'about:blank');
    assert.equal(typeof body.detail, 'string');
    assert.equal(body.error, body.detail);
    return body;
  }

  test('a malformed request line or header: 400 BAD_REQUEST', async () => {
    assertProblem(await send(malformed(`GET ${TAGS} HTTP/1.1 trailing`, '')), 400, 'BAD_REQUEST');
    assertProblem(await send(malformed(`POST ${TAGS} HTTP/1.1`, 'Bad Header: x\r\n', '{}')), 400, 'BAD_REQUEST');
    assertProblem(await send(`POST ${TAGS} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1x\r\n\r\n{}`), 400, 'BAD_REQUEST');
    const french = assertProblem(await send(malformed('GET /fr/api/config/tags HTTP/9.9', '')), 400, 'BAD_REQUEST');
    assert.equal(french.detail, 'La requête HTTP ne peut pas être lue.');
  });

  test('headers over the limit: 431 HEADERS_TOO_LARGE', async () => {
    assertProblem(await send(malformed(`GET ${TAGS} HTTP/1.1`, `X-Padding: ${'p'.repeat(20_000)}\r\n`)), 431, 'HEADERS_TOO_LARGE');
  });

  test('a method the parser does not know: 501 NOT_IMPLEMENTED, on any path', async () => {
    for (const path of [TAGS, '/healthz', '/nowhere']) assertProblem(await send(malformed(`FOO ${path} HTTP/1.1`, '')), 501, 'NOT_IMPLEMENTED');
  });

  test('headers that never end: 408 REQUEST_TIMEOUT', async () => {
    assertProblem(await send(`GET ${TAGS} HTTP/1.1\r\nHost: 127.0.0.1\r\n`), 408, 'REQUEST_TIMEOUT');
  });

  test('no log line shows the Authorization header or the body of a refused request', async () => {
    const token = `tok-${randomBytes(16).toString('hex')}`;
    const content = `body-${randomBytes(16).toString('hex')}`;
    const before = logLines(server.logs()).filter((line) => String(line.msg).startsWith('client ')).length;
    const auth = `Authorization: Bearer ${token}\r\n`;
    const body = JSON.stringify({ name: content });
    for (const request of [
      malformed(`POST ${TAGS} HTTP/1.1 x`, auth, body),
      malformed(`FOO ${TAGS} HTTP/1.1`, auth, body),
      malformed(`POST ${TAGS} HTTP/1.1`, `${auth}Bad Header: x\r\n`, body),
      malformed(`POST ${TAGS} HTTP/1.1`, `${auth}X-Padding: ${'p'.repeat(20_000)}\r\n`, body),
      `POST ${TAGS} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: 12x\r\n\r\n${body}`,
    ]) {
      assert.equal((await send(request)).outcome, 'answered');
    }
    // And a request the parser accepts, with the same credentials and body, logged at trace.
    const accepted = await server.request('POST', TAGS, { body: { name: content }, headers: bearer(token), unchecked: true });
    assert.equal(accepted.status, 401);
    const lines = await waitForLogs(server.logs, (all) => all.filter((line) => String(line.msg).startsWith('client ')).length >= before + 5);
    for (const line of lines) {
      const text = decoded(line);
      assert.ok(!text.includes(token), `a log line shows the token: ${text.slice(0, 300)}`);
      assert.ok(!text.includes(content), `a log line shows the body: ${text.slice(0, 300)}`);
    }
    assert.ok(!server.logs().includes(token) && !server.logs().includes(content));
  });
});
