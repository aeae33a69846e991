// The typed client (client/): generated from the document, so it must be up to date, and it
// must drive a full lifecycle of every resource against the real service, and read the change
// log with the entries of its records typed. Its responses are
// checked against the served document like every other response of the suite.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createConfigApiClient, createdEntry, type ConfigApiClient } from '../client/index.js';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../scripts/generate-client.js';
import { fetchOnOwnConnection, startServer, type TestServer } from './support/server.js';
import { makeKeyPair } from './support/ssh-keys.js';

let server: TestServer;
let client: ConfigApiClient;
let counter = 0;
const unique = (prefix: string): string => `${prefix}${process.pid.toString(36)}${(++counter).toString(36)}`;
const nextIp = (): string => `10.77.${(process.pid + counter) % 250}.${(++counter % 250) + 1}`;
const lang = 'en' as const;

before(async () => {
  server = await startServer();
  client = createConfigApiClient({
    baseUrl: server.url,
    // The client's traffic is held to the document too.
    fetch: async (request) => {
      const response = await fetchOnOwnConnection(request);
      const url = new URL(request.url);
      server.checkResponse(request.method, `${url.pathname}${url.search}`, {
        status: response.status,
        headers: response.headers,
        text: await response.clone().text(),
      });
      return response;
    },
  });
});
after(async () => {
  await server.stop();
  await server.cleanup();
});

/** The answer to a POST of one entry (the document also declares bulk and dry-run answers). */
function createdOne<T extends { resource: string }>(result: { data?: T; error?: unknown; response: Response }) {
  return createdEntry(ok(result, 201));
}

/** The success body of a client call, or a failure that shows the problem. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }, status = 200): T {
  assert.equal(result.response.status, status, JSON.stringify(result.error));
  assert.ok(result.data !== undefined);
  return result.data;
}

describe('the committed typed client', () => {
  test('is what openapi-typescript makes of the current document (else run npm run client:generate)', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'config-api-client-check-'));
    try {
      const fresh = join(scratch, 'schema.d.ts');
      generateClientTypes(fresh);
      assert.ok(
        readFileSync(fresh, 'utf8') === readFileSync(CLIENT_TYPES_FILE, 'utf8'),
        'client/schema.d.ts is stale: run `npm run client:generate` and commit the result',
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('a full lifecycle of each resource through the typed client', () => {
  test('tags', async () => {
    const created = createdOne(await client.POST('/{lang}/api/config/tags', { params: { path: { lang } }, body: { name: unique('tag-') } }));
    const id = created.id;
    assert.equal(created.item.color, '#ffffff');
    const path = { lang, id };
    assert.deepEqual(ok(await client.GET('/{lang}/api/config/tags/{id}', { params: { path } })).item, created.item);
    const listed = ok(await client.GET('/{lang}/api/config/tags', { params: { path: { lang }, query: { id, sort: '-updated_at' } } }));
    assert.deepEqual(listed.items, [created.item]);
    const replaced = ok(await client.PUT('/{lang}/api/config/tags/{id}', { params: { path }, body: { name: unique('tag-'), color: '#000000' } }));
    assert.equal(replaced.item.color, '#000000');
    const patched = ok(await client.PATCH('/{lang}/api/config/tags/{id}', { params: { path }, body: { background: '#123456' } }));
    assert.equal(patched.item.background, '#123456');
    assert.equal(patched.item.color, '#000000');
    assert.deepEqual(ok(await client.DELETE('/{lang}/api/config/tags/{id}', { params: { path } })), { id, deleted: true, mode: 'hard' });
    const gone = await client.GET('/{lang}/api/config/tags/{id}', { params: { path } });
    assert.equal(gone.response.status, 404);
    assert.equal(gone.error?.code, 'NOT_FOUND');
  });

  test('clients', async () => {
    const created = createdOne(await client.POST('/{lang}/api/config/clients', { params: { path: { lang } }, body: { libelle: unique('client-') } }));
    const path = { lang, id: created.id };
    assert.equal(ok(await client.GET('/{lang}/api/config/clients/{id}', { params: { path } })).item.is_monitored, true);
    const listed = ok(await client.GET('/{lang}/api/config/clients', { params: { path: { lang }, query: { libelle: created.item.libelle } } }));
    assert.deepEqual(listed.items.map((item) => item.id), [created.id]);
    const replaced = ok(await client.PUT('/{lang}/api/config/clients/{id}', { params: { path }, body: { libelle: unique('client-'), is_monitored: false } }));
    assert.equal(replaced.item.is_monitored, false);
    const patched = ok(await client.PATCH('/{lang}/api/config/clients/{id}', { params: { path }, body: { logo: 'acme.png' } }));
    assert.equal(patched.item.logo, 'acme.png');
    assert.equal(ok(await client.DELETE('/{lang}/api/config/clients/{id}', { params: { path } })).mode, 'hard');
    assert.equal((await client.GET('/{lang}/api/config/clients/{id}', { params: { path } })).response.status, 404);
  });

  test('environments', async () => {
    const body = { libelle: unique('env-'), key: unique('k'), class: 'info' as const, letter: 'Z' };
    const created = createdOne(await client.POST('/{lang}/api/config/environments', { params: { path: { lang } }, body }));
    const path = { lang, id: created.id };
    assert.ok(created.id > 6, 'built-in ids are 1-6');
    assert.equal(ok(await client.GET('/{lang}/api/config/environments/{id}', { params: { path } })).item.key, body.key);
    const listed = ok(await client.GET('/{lang}/api/config/environments', { params: { path: { lang }, query: { q: body.libelle } } }));
    assert.deepEqual(listed.items.map((item) => item.id), [created.id]);
    const replaced = ok(await client.PUT('/{lang}/api/config/environments/{id}', { params: { path }, body: { ...body, class: 'danger' } }));
    assert.equal(replaced.item.class, 'danger');
    const patched = ok(await client.PATCH('/{lang}/api/config/environments/{id}', { params: { path }, body: { letter: 'Y' } }));
    assert.equal(patched.item.letter, 'Y');
    assert.equal(ok(await client.DELETE('/{lang}/api/config/environments/{id}', { params: { path } })).deleted, true);
    assert.equal((await client.GET('/{lang}/api/config/environments/{id}', { params: { path } })).response.status, 404);
  });

  test('servers (soft delete)', async () => {
    const created = createdOne(await client.POST('/{lang}/api/config/servers', { params: { path: { lang } }, body: { ip: nextIp(), port: 3306 } }));
    const path = { lang, id: created.id };
    assert.equal(created.item.is_deleted, 0);
    assert.equal(ok(await client.GET('/{lang}/api/config/servers/{id}', { params: { path } })).item.port, 3306);
    const listed = ok(await client.GET('/{lang}/api/config/servers', { params: { path: { lang }, query: { ip: created.item.ip, limit: 10 } } }));
    assert.deepEqual(listed.items.map((item) => item.id), [created.id]);
    const replaced = ok(await client.PUT('/{lang}/api/config/servers/{id}', { params: { path }, body: { ip: created.item.ip, port: 3307, ssl: true } }));
    assert.equal(replaced.item.ssl, true);
    const patched = ok(await client.PATCH('/{lang}/api/config/servers/{id}', { params: { path }, body: { hostname: 'db-typed' } }));
    assert.equal(patched.item.hostname, 'db-typed');
    assert.equal(ok(await client.DELETE('/{lang}/api/config/servers/{id}', { params: { path } })).mode, 'soft');
    assert.equal(ok(await client.GET('/{lang}/api/config/servers/{id}', { params: { path } })).item.is_deleted, 1);
    const hidden = ok(await client.GET('/{lang}/api/config/servers', { params: { path: { lang }, query: { id: created.id } } }));
    assert.equal(hidden.total, 0);
    const shown = ok(await client.GET('/{lang}/api/config/servers', { params: { path: { lang }, query: { id: created.id, include_deleted: true } } }));
    assert.equal(shown.total, 1);
  });

  test('aliases', async () => {
    const target = createdOne(await client.POST('/{lang}/api/config/servers', { params: { path: { lang } }, body: { ip: nextIp() } }));
    const body = { id_mysql_server: target.id, dns: `${unique('alias-')}.example.com`, port: 3306 };
    const created = createdOne(await client.POST('/{lang}/api/config/aliases', { params: { path: { lang } }, body }));
    const path = { lang, id: created.id };
    assert.equal(ok(await client.GET('/{lang}/api/config/aliases/{id}', { params: { path } })).item.dns, body.dns);
    const listed = ok(await client.GET('/{lang}/api/config/aliases', { params: { path: { lang }, query: { id_mysql_server: target.id } } }));
    assert.deepEqual(listed.items.map((item) => item.id), [created.id]);
    const replaced = ok(await client.PUT('/{lang}/api/config/aliases/{id}', { params: { path }, body: { ...body, port: 3307 } }));
    assert.equal(replaced.item.port, 3307);
    const patched = ok(await client.PATCH('/{lang}/api/config/aliases/{id}', { params: { path }, body: { dns: `${unique('renamed-')}.example.com` } }));
    assert.match(patched.item.dns, /^renamed-/);
    assert.equal(ok(await client.DELETE('/{lang}/api/config/aliases/{id}', { params: { path } })).mode, 'hard');
    assert.equal((await client.GET('/{lang}/api/config/aliases/{id}', { params: { path } })).response.status, 404);
  });

  test('ssh-keys and storage-areas', async () => {
    const pair = makeKeyPair('ED25519', 'typed@config-api');
    const key = createdOne(await client.POST('/{lang}/api/config/ssh-keys', { params: { path: { lang } }, body: { type: 'ED25519', pub: pair.pub, 'privée': pair.openssh } }));
    const keyPath = { lang, id: key.id };
    assert.equal(key.item.fingerprint, pair.fingerprint);
    assert.ok(!('privée' in key.item));
    assert.equal(ok(await client.GET('/{lang}/api/config/ssh-keys/{id}', { params: { path: keyPath } })).item.pub, pair.pub);
    const keys = ok(await client.GET('/{lang}/api/config/ssh-keys', { params: { path: { lang }, query: { fingerprint: pair.fingerprint } } }));
    assert.deepEqual(keys.items.map((item) => item.id), [key.id]);
    // A PUT may leave privée out: the stored key is kept.
    const renamed = pair.pub.replace('typed@config-api', 'renamed@config-api');
    assert.equal(ok(await client.PUT('/{lang}/api/config/ssh-keys/{id}', { params: { path: keyPath }, body: { type: 'ED25519', pub: renamed } })).item.pub, renamed);
    assert.equal(ok(await client.PATCH('/{lang}/api/config/ssh-keys/{id}', { params: { path: keyPath }, body: { pub: pair.pub } })).item.pub, pair.pub);

    const body = { ip: '192.0.2.10', path: '/srv/backups', libelle: unique('area-'), ssh_key: key.id };
    const area = createdOne(await client.POST('/{lang}/api/config/storage-areas', { params: { path: { lang } }, body }));
    const areaPath = { lang, id: area.id };
    assert.equal(area.item.port, 22);
    assert.equal(area.item['géolocalisation'], null);
    assert.equal(ok(await client.GET('/{lang}/api/config/storage-areas/{id}', { params: { path: areaPath } })).item.libelle, body.libelle);
    const areas = ok(await client.GET('/{lang}/api/config/storage-areas', { params: { path: { lang }, query: { ssh_key: key.id } } }));
    assert.deepEqual(areas.items.map((item) => item.id), [area.id]);
    const replaced = ok(await client.PUT('/{lang}/api/config/storage-areas/{id}', { params: { path: areaPath }, body: { ...body, 'géolocalisation': 'Paris, FR' } }));
    assert.equal(replaced.item['géolocalisation'], 'Paris, FR');
    assert.equal(ok(await client.PATCH('/{lang}/api/config/storage-areas/{id}', { params: { path: areaPath }, body: { port: 2222 } })).item.port, 2222);

    // The key is still used by the storage area: refused, then allowed once the area is gone.
    const refused = await client.DELETE('/{lang}/api/config/ssh-keys/{id}', { params: { path: keyPath } });
    assert.equal(refused.response.status, 409);
    assert.equal(refused.error?.code, 'REFERENCED');
    assert.equal(ok(await client.DELETE('/{lang}/api/config/storage-areas/{id}', { params: { path: areaPath } })).mode, 'hard');
    assert.equal(ok(await client.DELETE('/{lang}/api/config/ssh-keys/{id}', { params: { path: keyPath } })).mode, 'hard');
    assert.equal((await client.GET('/{lang}/api/config/storage-areas/{id}', { params: { path: areaPath } })).response.status, 404);
    assert.equal((await client.GET('/{lang}/api/config/ssh-keys/{id}', { params: { path: keyPath } })).response.status, 404);
  });

  test('conditional requests: ETag, If-None-Match and If-Match', async () => {
    const created = await client.POST('/{lang}/api/config/tags', { params: { path: { lang } }, body: { name: unique('etag-') } });
    const etag = created.response.headers.get('etag') ?? '';
    assert.match(etag, /^"/);
    const path = { lang, id: createdOne(created).id };
    const unchanged = await client.GET('/{lang}/api/config/tags/{id}', { params: { path, header: { 'If-None-Match': etag } } });
    assert.equal(unchanged.response.status, 304);
    const stale = await client.PATCH('/{lang}/api/config/tags/{id}', { params: { path, header: { 'If-Match': '"stale"' } }, body: { color: '#000000' } });
    assert.equal(stale.response.status, 412);
    assert.equal(stale.error?.code, 'PRECONDITION_FAILED');
    const fresh = await client.PATCH('/{lang}/api/config/tags/{id}', { params: { path, header: { 'If-Match': etag } }, body: { color: '#000000' } });
    assert.equal(ok(fresh).item.color, '#000000');
  });
});

describe('the change log through the typed client', () => {
  test('an entry’s history and /changes, with before and after typed as the resource’s entries', async () => {
    const created = createdOne(await client.POST('/{lang}/api/config/tags', { params: { path: { lang } }, body: { name: unique('logged-') } }));
    const path = { lang, id: created.id };
    ok(await client.PATCH('/{lang}/api/config/tags/{id}', { params: { path }, body: { color: '#123456' } }));
    const history = ok(await client.GET('/{lang}/api/config/tags/{id}/history', { params: { path, query: { limit: 10 } } }));
    assert.equal(history.total, 2);
    const [update, create] = history.items;
    assert.ok(update !== undefined && create !== undefined);
    assert.equal(update.action, 'update');
    // `after` is a Tag (or null): its fields are typed.
    assert.equal(update.after?.color, '#123456');
    assert.equal(update.before?.color, '#ffffff');
    assert.equal(create.before, null);
    assert.deepEqual(create.after, created.item);
    const page = ok(await client.GET('/{lang}/api/changes', { params: { path: { lang }, query: { since: 0, resource: 'tags', entry_id: created.id } } }));
    assert.deepEqual(page.items, [...history.items].reverse());
    assert.equal(page.next, update.id);
    const gone = await client.GET('/{lang}/api/config/tags/{id}/history', { params: { path: { lang, id: 2_000_000 } } });
    assert.equal(gone.response.status, 404);
    assert.equal(gone.error?.code, 'NOT_FOUND');
  });
});
