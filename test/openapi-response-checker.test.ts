// The harness that holds every response to the OpenAPI document must itself catch a
// response that breaks the document, or the whole suite's agreement with it means nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ObservedResponse } from './support/openapi-response-checker.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
let tag: Record<string, unknown>;

before(async () => {
  server = await startServer();
  tag = (await server.request('POST', '/en/api/config/tags', { body: { name: 'checked' } })).body.item;
});
after(async () => {
  await server.stop();
  await server.cleanup();
});

function response(status: number, body: unknown, headers: Record<string, string> = {}): ObservedResponse {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const contentType: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' };
  return { status, headers: new Headers({ ...contentType, ...headers }), text };
}

function problem(status: number, code: string, headers: Record<string, string> = {}): ObservedResponse {
  const body = { type: 'about:blank', title: 'x', status, code, detail: 'd', error: 'd' };
  return { status, headers: new Headers({ 'content-type': 'application/problem+json; charset=utf-8', ...headers }), text: JSON.stringify(body) };
}

const ITEM = '/en/api/config/tags/1';
const ETAG = { etag: '"abc"' };

describe('the response checker', () => {
  test('accepts what the document declares', () => {
    server.checkResponse('GET', ITEM, response(200, { item: tag }, ETAG));
    server.checkResponse('GET', ITEM, response(304, undefined, ETAG));
    server.checkResponse('HEAD', ITEM, response(200, undefined, { ...ETAG, 'content-type': 'application/json' }));
    server.checkResponse('PATCH', ITEM, problem(412, 'PRECONDITION_FAILED'));
    server.checkResponse('PUT', '/en/api/config/tags', problem(405, 'METHOD_NOT_ALLOWED', { allow: 'GET, HEAD, POST, PATCH, DELETE, OPTIONS' }));
    server.checkResponse('OPTIONS', ITEM, { status: 204, headers: new Headers({ allow: 'GET' }), text: '' });
    server.checkResponse('GET', '/en/api/no/such/path', problem(404, 'NOT_FOUND'));
  });

  const refused: [string, string, string, ObservedResponse][] = [
    ['a status the operation does not declare', 'GET', ITEM, response(201, { item: tag }, ETAG)],
    ['a body that breaks the schema', 'GET', ITEM, response(200, { item: { ...tag, color: 7 } }, ETAG)],
    ['a write-only field in a response', 'GET', ITEM, response(200, { item: { ...tag, 'privée': 'x' } }, ETAG)],
    ['a missing required header (ETag)', 'GET', ITEM, response(200, { item: tag })],
    ['a content type the response does not declare', 'GET', ITEM, { ...response(200, { item: tag }, ETAG), headers: new Headers({ ...ETAG, 'content-type': 'text/html' }) }],
    ['a body where none is declared (304)', 'GET', ITEM, response(304, { item: tag }, ETAG)],
    ['a problem code that does not fit the status', 'GET', ITEM, problem(404, 'CONFLICT')],
    ['405 without Allow', 'PUT', '/en/api/config/tags', problem(405, 'METHOD_NOT_ALLOWED')],
    ['a HEAD response with a body', 'HEAD', ITEM, response(200, { item: tag }, ETAG)],
    ['OPTIONS answered 204 without Allow', 'OPTIONS', ITEM, { status: 204, headers: new Headers(), text: '' }],
    ['OPTIONS answered 200', 'OPTIONS', ITEM, response(200, {}, { allow: 'GET' })],
    ['a success on a path the document does not have', 'GET', '/en/api/no/such/path', response(200, {})],
    ['an error that is not problem+json on an unknown path', 'GET', '/en/api/no/such/path', response(404, { message: 'not found' })],
  ];
  for (const [label, method, path, observed] of refused) {
    test(`throws on ${label}`, () => {
      assert.throws(() => server.checkResponse(method, path, observed), /disagrees with the OpenAPI document/);
    });
  }

  test('request() skips the check when asked to ({ unchecked: true })', async () => {
    const reply = await server.request('GET', '/en/api/config/tags', { unchecked: true });
    assert.equal(reply.status, 200);
  });
});
