// The harness that holds every response to the OpenAPI document must itself catch a
// response that breaks the document, or the whole suite's agreement with it means nothing.
// The change log's answers (contract section 13) are held to it here too, the stream's
// included: its status, headers, content type and events, read until they came.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ObservedResponse } from './support/openapi-response-checker.js';
import { OWN_CONNECTION, startServer, type TestServer } from './support/server.js';
import { makeKeyPair } from './support/ssh-keys.js';

let server: TestServer;
let tag: Record<string, unknown>;
/** The tag's history and the /changes page of its records, as the service answered them. */
let history: { items: Record<string, unknown>[] } & Record<string, unknown>;
let changes: { items: Record<string, unknown>[]; next: number };

before(async () => {
  server = await startServer();
  tag = (await server.request('POST', '/en/api/config/tags', { body: { name: 'checked' } })).body.item;
  await server.request('PATCH', `/en/api/config/tags/${String(tag.id)}`, { body: { color: '#000000' } });
  history = (await server.request('GET', `/en/api/config/tags/${String(tag.id)}/history`)).body;
  changes = (await server.request('GET', `/en/api/changes?resource=tags&entry_id=${String(tag.id)}`)).body;
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
const HISTORY = '/en/api/config/tags/1/history';
const CHANGES = '/en/api/changes';
const STREAM = '/en/api/changes/stream';
const EVENTS = 'text/event-stream; charset=utf-8';

/** GET of the change stream, read until `enough` holds of what came (whole events), then dropped. */
async function readStream(path: string, enough: (text: string) => boolean, headers: Record<string, string> = {}): Promise<ObservedResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    const response = await fetch(`${server.url}${path}`, { headers: { ...OWN_CONNECTION, accept: 'text/event-stream', ...headers }, signal: controller.signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!(text.endsWith('\n\n') && enough(text))) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    return { status: response.status, headers: response.headers, text };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

const eventCount = (text: string): number => text.split('\nevent: change\n').length - 1;
const eventsOf = (records: Record<string, unknown>[]): string => records.map((record) => `id: ${String(record.id)}\nevent: change\ndata: ${JSON.stringify(record)}\n\n`).join('');

describe('the response checker', () => {
  test('accepts what the document declares', () => {
    server.checkResponse('GET', ITEM, response(200, { item: tag }, ETAG));
    server.checkResponse('GET', ITEM, response(304, undefined, ETAG));
    server.checkResponse('HEAD', ITEM, response(200, undefined, { ...ETAG, 'content-type': 'application/json' }));
    server.checkResponse('PATCH', ITEM, problem(412, 'PRECONDITION_FAILED'));
    server.checkResponse('PUT', '/en/api/config/tags', problem(405, 'METHOD_NOT_ALLOWED', { allow: 'GET, HEAD, POST, PATCH, DELETE, OPTIONS' }));
    server.checkResponse('OPTIONS', ITEM, { status: 204, headers: new Headers({ allow: 'GET' }), text: '' });
    server.checkResponse('GET', '/en/api/no/such/path', problem(404, 'NOT_FOUND'));
    server.checkResponse('GET', HISTORY, response(200, history));
    server.checkResponse('GET', CHANGES, response(200, changes));
    server.checkResponse('GET', STREAM, { status: 200, headers: new Headers({ 'content-type': EVENTS, 'cache-control': 'no-store' }), text: `: open\n\n${eventsOf(changes.items)}` });
  });

  test('holds the change log’s real answers to the document: /changes, a history, HEAD, OPTIONS and the errors (request() checks each)', async () => {
    assert.equal(changes.items.length, 2);
    assert.deepEqual(changes.items.map((record) => record.action), ['create', 'update']);
    assert.equal(changes.next, changes.items[1]!.id);
    // Newest first, and the same records.
    assert.deepEqual(history, { items: [...changes.items].reverse(), total: 2, limit: 100, offset: 0 });
    const path = `/en/api/config/tags/${String(tag.id)}/history`;
    for (const [method, url, status] of [
      ['GET', `${CHANGES}?since=${changes.next}`, 200],
      ['GET', `/fr/api/changes?action=update&actor=anonymous&limit=1`, 200],
      ['HEAD', CHANGES, 200],
      ['HEAD', path, 200],
      ['OPTIONS', CHANGES, 204],
      ['OPTIONS', path, 204],
      ['OPTIONS', STREAM, 204],
      ['GET', `${path}?limit=1&offset=1`, 200],
      ['GET', `${CHANGES}?resource=nope`, 400],
      ['GET', `${CHANGES}?limit=0`, 400],
      ['GET', `${path}?since=1`, 400],
      ['GET', `${STREAM}?limit=5`, 400],
      ['GET', '/en/api/config/tags/2000000/history', 404],
      ['DELETE', CHANGES, 405],
      ['POST', STREAM, 405],
      ['PUT', path, 405],
    ] as const) {
      const reply = await server.request(method, url, method === 'POST' || method === 'PUT' ? { body: {} } : {});
      assert.equal(reply.status, status, `${method} ${url}: ${reply.text}`);
    }
    assert.equal((await server.request('OPTIONS', STREAM)).headers.get('allow'), 'GET, OPTIONS');
    // Not in the document, so not held to it: a HEAD answer has no body to show its problem.
    const head = await server.request('HEAD', STREAM, { unchecked: true });
    assert.equal(head.status, 405);
    assert.equal(head.headers.get('allow'), 'GET, OPTIONS');
  });

  test('holds every kind of record to its resource’s schema: soft delete and restore, a link undone by a delete, a secret set, bulk writes', async () => {
    const since = changes.next;
    const send = async (method: string, url: string, body?: unknown, status = 200): Promise<any> => {
      const reply = await server.request(method, url, body === undefined ? {} : { body });
      assert.equal(reply.status, status, `${method} ${url}: ${reply.text}`);
      return reply.body;
    };
    const linked = (await send('POST', '/en/api/config/tags', { name: 'linked' }, 201)).id as number;
    const serverId = (await send('POST', '/en/api/config/servers', { ip: '10.99.0.1', tags: [linked] }, 201)).id as number;
    await send('DELETE', `/en/api/config/tags/${linked}`);
    await send('DELETE', `/en/api/config/servers/${serverId}`);
    await send('POST', `/en/api/config/servers/${serverId}/restore`);
    const pair = makeKeyPair('ED25519');
    const keyId = (await send('POST', '/en/api/config/ssh-keys', { type: pair.type, pub: pair.pub, 'privée': pair.openssh }, 201)).id as number;
    const bulk = (await send('POST', '/en/api/config/tags', [{ name: 'bulk-1' }, { name: 'bulk-2' }], 201)).items.map((item: { id: number }) => item.id);
    await send('DELETE', `/en/api/config/tags?id=${bulk.join(',')}`);

    const serverHistory = await send('GET', `/en/api/config/servers/${serverId}/history`);
    assert.deepEqual(serverHistory.items.map((record: any) => record.action), ['restore', 'delete', 'update', 'create']);
    assert.deepEqual(serverHistory.items[2].after.tags, [], 'the tag’s delete took it off the server');
    assert.equal(serverHistory.items[1].after.is_deleted, 1, 'a soft delete shows is_deleted 1');
    const keyHistory = await send('GET', `/en/api/config/ssh-keys/${keyId}/history`);
    assert.deepEqual(keyHistory.items[0].secrets_changed, ['privée']);
    assert.equal(keyHistory.items[0].after['privée'], undefined);
    assert.deepEqual((await send('GET', `/en/api/config/tags/${linked}/history`)).items.map((record: any) => record.action), ['delete', 'create']);
    const page = await send('GET', `/en/api/changes?since=${since}`);
    assert.equal(page.items.length, 11);
    assert.equal((await send('GET', `/fr/api/changes?since=${since}&resource=servers&action=restore`)).items.length, 1);
  });

  test('holds the change stream to the document: status, Cache-Control, text/event-stream, one event per record (also from Last-Event-ID)', { timeout: 30_000 }, async () => {
    const path = `${STREAM}?resource=tags&entry_id=${String(tag.id)}`;
    const stream = await readStream(path, (text) => eventCount(text) >= 2);
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('content-type'), EVENTS);
    assert.equal(stream.headers.get('cache-control'), 'no-store');
    assert.ok(stream.text.endsWith(eventsOf(changes.items)), stream.text);
    server.checkResponse('GET', path, stream);
    const resumed = await readStream(path, (text) => eventCount(text) >= 1, { 'last-event-id': String(changes.items[0]!.id) });
    assert.ok(resumed.text.endsWith(eventsOf(changes.items.slice(1))), resumed.text);
    server.checkResponse('GET', path, resumed);
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

  // Made once the server answered: records as the service wrote them, each with one thing wrong.
  const record = (change: Record<string, unknown>): Record<string, unknown> => ({ ...history.items[0], ...change });
  const stream = (text: string, headers: Record<string, string> = { 'content-type': EVENTS, 'cache-control': 'no-store' }): ObservedResponse => ({ status: 200, headers: new Headers(headers), text });
  const refusedChanges: [string, string, string, () => ObservedResponse][] = [
    ['a history record whose entry breaks the resource’s schema', 'GET', HISTORY, () => response(200, { ...history, items: [record({ after: { ...(history.items[0]!.after as object), color: 7 } })] })],
    ['a history record with a write-only field', 'GET', HISTORY, () => response(200, { ...history, items: [record({ before: { ...(history.items[0]!.before as object), 'privée': 'x' } })] })],
    ['a restore in the history of a resource deleted hard', 'GET', HISTORY, () => response(200, { ...history, items: [record({ action: 'restore' })] })],
    ['a history record of another resource', 'GET', HISTORY, () => response(200, { ...history, items: [record({ resource: 'clients' })] })],
    ['a history without total', 'GET', HISTORY, () => response(200, { items: history.items, limit: 100, offset: 0 })],
    ['a record without request_id', 'GET', CHANGES, () => response(200, { ...changes, items: [{ ...changes.items[0], request_id: undefined }] })],
    ['a record with an unknown action', 'GET', CHANGES, () => response(200, { ...changes, items: [{ ...changes.items[0], action: 'rename' }] })],
    ['a list of changes without next', 'GET', CHANGES, () => response(200, { items: changes.items })],
    ['the stream as JSON', 'GET', STREAM, () => response(200, changes)],
    ['the stream without Cache-Control: no-store', 'GET', STREAM, () => stream(eventsOf(changes.items), { 'content-type': EVENTS })],
    ['a stream event without its id', 'GET', STREAM, () => stream('event: change\ndata: {}\n\n')],
    ['a stream event of another kind', 'GET', STREAM, () => stream('id: 1\nevent: message\ndata: {}\n\n')],
  ];
  for (const [label, method, path, observed] of refusedChanges) {
    test(`throws on ${label}`, () => {
      assert.throws(() => server.checkResponse(method, path, observed()), /disagrees with the OpenAPI document/);
    });
  }

  test('request() skips the check when asked to ({ unchecked: true })', async () => {
    const reply = await server.request('GET', '/en/api/config/tags', { unchecked: true });
    assert.equal(reply.status, 200);
  });
});
