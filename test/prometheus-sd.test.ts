// Contract section 17, Prometheus HTTP service discovery, over HTTP against the started
// service: the targets and their labels (names made valid, empty values), the servers left
// out, the filters, ETag and 304, read access, and an answer streamed in chunks.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { before, describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';
import { ADMIN, SD, TOKEN_ENV, makeFleet, monitored, type Fleet } from './support/monitoring-fleet.js';
import { bearer } from './support/tokens.js';

const server = serverPerSuite({ env: TOKEN_ENV });
let fleet: Fleet;
const P = '__meta_pmacontrol_';

const read = (path = SD, headers: Record<string, string> = {}) => server.request('GET', path, { headers: { ...bearer(fleet.read.token), ...headers } });
const ids = (body: any[]) => body.map((group) => Number(group.labels[`${P}server_id`]));

describe('Prometheus service discovery', () => {
  before(async () => {
    fleet = await makeFleet(server);
  });

  test('every live monitored server, in id order, with its labels; unmonitored and soft-deleted servers left out', async () => {
    const reply = await read();
    assert.equal(reply.status, 200, reply.text);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(ids(reply.body), monitored(fleet).map((entry) => entry.id));
    const [a, blank, , , v6] = reply.body;
    assert.deepEqual(a, {
      targets: ['127.0.0.11:23306'],
      labels: {
        [`${P}server_id`]: String(fleet.servers.a.id),
        [`${P}hostname`]: 'db-a',
        [`${P}port`]: '23306',
        [`${P}client`]: 'ACME Inc.',
        [`${P}client_id`]: String(fleet.clients.acme),
        [`${P}environment`]: 'prod',
        [`${P}environment_id`]: '1',
        [`${P}tags`]: ',galera cluster,ünï-code,',
        [`${P}ssl`]: 'true',
        [`${P}is_proxy`]: 'true',
        [`${P}is_vip`]: 'false',
        // Every character outside A-Za-z0-9_ turned into `_`, one for each.
        [`${P}tag_galera_cluster`]: 'true',
        [`${P}tag__n__code`]: 'true',
      },
    });
    // Empty values are empty strings, never missing or null.
    assert.deepEqual(blank.labels, {
      [`${P}server_id`]: String(fleet.servers.blank.id),
      [`${P}hostname`]: '',
      [`${P}port`]: '23306',
      [`${P}client`]: '',
      [`${P}client_id`]: '',
      [`${P}environment`]: '',
      [`${P}environment_id`]: '',
      [`${P}tags`]: '',
      [`${P}ssl`]: 'false',
      [`${P}is_proxy`]: 'false',
      [`${P}is_vip`]: 'false',
    });
    assert.deepEqual(v6.targets, ['[::1]:23308'], 'an IPv6 address in brackets');
    assert.equal(v6.labels[`${P}is_vip`], 'true');
    for (const group of reply.body) {
      for (const [name, value] of Object.entries(group.labels)) {
        assert.match(name, /^__meta_pmacontrol_[A-Za-z0-9_]+$/);
        assert.equal(typeof value, 'string');
      }
    }
  });

  test('the server list’s filters narrow it: id_client, id_environment, tag (repeatable), q', async () => {
    const { a, twin1, twin2 } = fleet.servers;
    const cases: [string, number[]][] = [
      [`id_client=${fleet.clients.acme}`, [a.id]],
      ['id_environment=1', [a.id, twin2.id]],
      [`tag=${fleet.tags.galera}`, [a.id, twin2.id]],
      [`tag=${fleet.tags.galera}&tag=${fleet.tags.unicode}`, [a.id]],
      [`tag=${fleet.tags.unused}`, []],
      ['q=TWIN', [twin1.id, twin2.id]],
      [`q=127.0.0.1&id_environment=2`, [twin1.id]],
    ];
    for (const [query, expected] of cases) {
      const reply = await read(`${SD}?${query}`);
      assert.equal(reply.status, 200, `${query}: ${reply.text}`);
      assert.deepEqual(ids(reply.body), expected, query);
    }
  });

  test('any other parameter, or a bad value, is 400 BAD_QUERY', async () => {
    for (const query of ['limit=10', 'is_monitored=false', 'include_deleted=true', 'id_client=abc', 'tag=0', 'q=', 'sort=id']) {
      const reply = await read(`${SD}?${query}`);
      assert.equal(reply.status, 400, query);
      assert.equal(reply.body.code, 'BAD_QUERY', query);
      assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
    }
  });

  test('ETag and If-None-Match: 304 while nothing shown changed; a change anywhere it shows gives a new tag', async () => {
    const first = await read();
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[^"]+"$/);
    const again = await read(SD, { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers.get('etag'), etag);
    // Another query has another tag.
    assert.notEqual((await read(`${SD}?id_environment=1`)).headers.get('etag'), etag);
    // A tag renamed: the labels change, and so does the answer's tag.
    const renamed = await server.request('PATCH', `/en/api/config/tags/${fleet.tags.backup}`, { body: { name: 'backups' }, headers: bearer(ADMIN) });
    assert.equal(renamed.status, 200, renamed.text);
    const after = await read(SD, { 'if-none-match': etag });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), etag);
    const twin1 = after.body.find((group: any) => group.labels[`${P}server_id`] === String(fleet.servers.twin1.id));
    assert.equal(twin1.labels[`${P}tags`], ',backups,');
    assert.equal(twin1.labels[`${P}tag_backups`], 'true');
    assert.equal(twin1.labels[`${P}tag_backup`], undefined);
  });

  test('read scope: a read token reads it; no token, an unknown one or a revoked one is 401', async () => {
    assert.equal((await read()).status, 200);
    const anonymous = await server.request('GET', SD);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'UNAUTHORIZED');
    assert.equal((await server.request('GET', SD, { headers: bearer('pmcapi_not-a-token') })).status, 401);
    const post = await server.request('POST', SD, { headers: bearer(fleet.read.token), body: {} });
    assert.equal(post.status, 403, 'a write with a read token');
  });

  test('the body is streamed: chunked, no Content-Length', async () => {
    const url = new URL(`${server.url}${SD}`);
    const headers = await new Promise<Record<string, unknown>>((done, fail) => {
      const outgoing = httpRequest(url, { headers: bearer(fleet.read.token) }, (incoming) => {
        incoming.resume();
        incoming.on('end', () => done(incoming.headers));
      });
      outgoing.on('error', fail);
      outgoing.end();
    });
    assert.equal(headers['transfer-encoding'], 'chunked');
    assert.equal(headers['content-length'], undefined);
  });

  test('a revoked token is 401 at once', async () => {
    const revoked = await server.request('DELETE', `/en/api/tokens/${fleet.read.id}`, { headers: bearer(ADMIN) });
    assert.equal(revoked.status, 200, revoked.text);
    const reply = await server.request('GET', SD, { headers: bearer(fleet.read.token) });
    assert.equal(reply.status, 401);
    assert.equal(reply.body.code, 'UNAUTHORIZED');
  });
});
