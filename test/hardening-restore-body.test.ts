// Hardening (outside probe): `POST …/restore` takes no body, and many clients send `{}` with
// every body-less POST. An empty JSON object is no body: accepted. Anything else is still
// 422 VALIDATION_FAILED (a body meant for another request is said, not ignored).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';

const SERVERS = '/en/api/config/servers';
const server = serverPerSuite();

/** A soft-deleted server, new for each test. */
async function deletedServer(octet: number): Promise<number> {
  const made = await server.request('POST', SERVERS, { body: { ip: `192.0.2.${octet}`, port: 3306, hostname: `restore-${octet}` } });
  assert.equal(made.status, 201, made.text);
  const removed = await server.request('DELETE', `${SERVERS}/${made.body.item.id}`);
  assert.equal(removed.status, 200, removed.text);
  return made.body.item.id;
}

describe('POST /servers/{id}/restore', () => {
  let octet = 10;

  test('with {} as body: 200, restored', async () => {
    const id = await deletedServer(octet++);
    for (const raw of ['{}', ' { } \n']) {
      const reply = await server.request('POST', `${SERVERS}/${id}/restore`, { raw, headers: { 'content-type': 'application/json' } });
      assert.equal(reply.status, 200, `${JSON.stringify(raw)}: ${reply.text}`);
      assert.equal(reply.body.restored, true);
      assert.equal(reply.body.item.is_deleted, 0);
    }
  });

  test('with {} and dry_run: 200, nothing changed', async () => {
    const id = await deletedServer(octet++);
    const reply = await server.request('POST', `${SERVERS}/${id}/restore?dry_run=true`, { body: {} });
    assert.equal(reply.status, 200, reply.text);
    assert.equal((await server.request('GET', `${SERVERS}/${id}`)).body.item.is_deleted, 1);
  });

  test('with no body at all: 200, as before', async () => {
    const id = await deletedServer(octet++);
    const reply = await server.request('POST', `${SERVERS}/${id}/restore`);
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.item.is_deleted, 0);
  });

  test('with any other body: 422, the server stays deleted', async () => {
    const id = await deletedServer(octet++);
    for (const body of [{ is_deleted: 0 }, [], [{}], 'restore', 0, null, true]) {
      const reply = await server.request('POST', `${SERVERS}/${id}/restore`, { raw: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      assert.equal(reply.status, 422, `${JSON.stringify(body)}: ${reply.text}`);
      assert.equal(reply.body.code, 'VALIDATION_FAILED');
      assert.deepEqual(
        reply.body.errors.map((problem: { field: string }) => problem.field),
        [''],
      );
    }
    assert.equal((await server.request('GET', `${SERVERS}/${id}`)).body.item.is_deleted, 1);
  });
});
