// Contract section 18, the apply: POST /{lang}/api/apply makes the store equal to a document
// (JSON or YAML), in dependency order, pruning only what `prune` names; the plan as the
// answer, its ETag and If-Match; one transaction, one request id in the change log; every
// refusal placed in the document and leaving every row as it was.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { stringify } from 'yaml';
import { allEntries } from './support/entries.js';
import { serverPerSuite, type Reply } from './support/server.js';
import { makeKeyPair } from './support/ssh-keys.js';

const server = serverPerSuite();
const API = '/en/api/config';
let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;
let octet = 0;
const ip = () => `10.77.${Math.floor(++octet / 250)}.${(octet % 250) + 1}`;

type Document = Record<string, unknown>;

function apply(document: Document | string, query = '', headers: Record<string, string> = {}): Promise<Reply> {
  if (typeof document === 'string') return server.request('POST', `/en/api/apply${query}`, { raw: document, headers: { 'content-type': 'application/yaml', ...headers } });
  return server.request('POST', `/en/api/apply${query}`, { body: document, headers });
}


async function unchanged(send: () => Promise<Reply>): Promise<Reply> {
  const before = await server.rows();
  const reply = await send();
  assert.ok((await server.rows()) === before, `${reply.status} ${reply.text.slice(0, 300)}: the database changed`);
  return reply;
}

const places = (reply: Reply) => (reply.body.errors as { at: string }[]).map((error) => error.at).sort();

const KEY_OF: Record<string, (entry: Record<string, unknown>) => string> = {
  tags: (entry) => String(entry.name),
  clients: (entry) => String(entry.libelle),
  environments: (entry) => String(entry.key),
  servers: (entry) => `${entry.ip}:${entry.port}`,
  aliases: (entry) => `${entry.dns}:${entry.port}`,
  'ssh-keys': (entry) => String(entry.fingerprint),
  'storage-areas': (entry) => `${entry.ip}:${entry.port}:${entry.path}`,
};

/** The stored configuration as a document, made here from the lists (independently of the
 * export): what an apply with every prune must leave as it is. */
async function storedDocument(): Promise<Record<string, Record<string, unknown>[]>> {
  const stored: Record<string, Record<string, unknown>[]> = {};
  for (const resource of Object.keys(KEY_OF)) stored[resource] = (await allEntries(server, resource)).filter((entry) => entry.is_deleted !== 1);
  const keyOf = (resource: string, id: unknown) => KEY_OF[resource]!(stored[resource]!.find((entry) => entry.id === id)!);
  const document: Record<string, Record<string, unknown>[]> = {};
  for (const [resource, entries] of Object.entries(stored)) {
    document[resource] = entries.map(({ id: _id, created_at: _created, updated_at: _updated, is_deleted: _deleted, ...entry }) => {
      if (resource === 'servers') {
        entry.id_client = entry.id_client === null ? null : keyOf('clients', entry.id_client);
        entry.id_environment = entry.id_environment === null ? null : keyOf('environments', entry.id_environment);
        entry.tags = (entry.tags as number[]).map((tag) => keyOf('tags', tag));
      }
      if (resource === 'aliases') entry.id_mysql_server = keyOf('servers', entry.id_mysql_server);
      if (resource === 'storage-areas') entry.ssh_key = keyOf('ssh-keys', entry.ssh_key);
      return entry;
    });
  }
  return document;
}

async function lastChange(): Promise<number> {
  let since = 0;
  for (;;) {
    const page = await server.request('GET', `/en/api/changes?since=${since}&limit=1000`);
    if (page.body.items.length === 0) return since;
    since = page.body.next;
  }
}

async function changesSince(since: number): Promise<{ action: string; resource: string; request_id: string; entry_id: number }[]> {
  return (await server.request('GET', `/en/api/changes?since=${since}&limit=1000`)).body.items;
}

async function find(resource: string, key: string): Promise<Record<string, unknown> | undefined> {
  return (await allEntries(server, resource)).find((entry) => entry.is_deleted !== 1 && KEY_OF[resource]!(entry) === key);
}

describe('apply', () => {
  test('creates a tag, a client, an environment and the servers that use them; a second apply changes and records nothing', async () => {
    const [tag, client, env] = [unique('tag'), unique('client'), unique('env').slice(0, 13).replace(/[^a-z0-9_-]/g, '')];
    const [first, second] = [ip(), ip()];
    const document = {
      version: 1,
      servers: [
        { ip: first, port: 3306, hostname: 'db-a', id_client: client, id_environment: env, tags: [tag] },
        { ip: second, id_client: null, tags: [] },
      ],
      tags: [{ name: tag, color: '#000000' }],
      clients: [{ libelle: client }],
      environments: [{ libelle: env, key: env, class: 'info', letter: 'X' }],
    };
    const dry = await unchanged(() => apply(document, '?dry_run=true'));
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.headers.get('dry-run'), 'true');
    assert.deepEqual(dry.body.counts, { create: 5, update: 0, delete: 0, unchanged: 0 });
    assert.ok(dry.body.changes.every((change: { id: unknown }) => change.id === null));
    assert.deepEqual(
      dry.body.changes.map((change: { resource: string; key: string }) => `${change.resource} ${change.key}`),
      [`tags ${tag}`, `clients ${client}`, `environments ${env}`, `servers ${first}:3306`, `servers ${second}:3306`],
      'in dependency order',
    );

    const since = await lastChange();
    const requestId = unique('apply-request');
    const applied = await apply(document, '', { 'x-request-id': requestId });
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.headers.get('dry-run'), null);
    assert.match(applied.headers.get('etag') ?? '', /^"apply-/);
    assert.deepEqual(applied.body.counts, { create: 5, update: 0, delete: 0, unchanged: 0 });
    const stored = await find('servers', `${first}:3306`);
    const [tagEntry, clientEntry, envEntry] = [await find('tags', tag), await find('clients', client), await find('environments', env)];
    assert.equal(tagEntry?.color, '#000000');
    assert.deepEqual([stored?.hostname, stored?.id_client, stored?.id_environment, stored?.tags], ['db-a', clientEntry?.id, envEntry?.id, [tagEntry?.id]]);
    assert.equal(applied.body.changes[3].id, stored?.id);
    const changes = await changesSince(since);
    assert.equal(changes.length, 5);
    assert.ok(changes.every((change) => change.request_id === requestId && change.action === 'create'), 'every change under the request id');
    assert.ok(applied.body.change_id >= Math.max(...(await changesSince(since)).map((change) => (change as unknown as { id: number }).id)));

    const again = await unchanged(() => apply(document));
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.counts, { create: 0, update: 0, delete: 0, unchanged: 5 });
    assert.deepEqual(again.body.changes, []);

    // Fields the document leaves out keep their values; a changed one is an update, shown by key.
    const edited = { servers: [{ ip: first, hostname: 'db-b', id_client: null, tags: [] }, { ip: second }] };
    const update = await apply(edited);
    assert.equal(update.status, 200, update.text);
    assert.deepEqual(update.body.counts, { create: 0, update: 1, delete: 0, unchanged: 1 });
    assert.deepEqual(update.body.changes, [
      { action: 'update', resource: 'servers', key: `${first}:3306`, id: stored?.id, fields: { hostname: ['db-a', 'db-b'], id_client: [client, null], tags: [[tag], []] } },
    ]);
    const after = await find('servers', `${first}:3306`);
    assert.deepEqual([after?.hostname, after?.id_client, after?.id_environment, after?.tags], ['db-b', null, envEntry?.id, []]);
  });

  test('an entry holding the stored values in another form is unchanged; one naming another entry is an update; a bad value beside stored ones is refused', async () => {
    const [one, two, client] = [unique('tag'), unique('tag'), unique('client')];
    const address = ip();
    const document = { tags: [{ name: one }, { name: two }], clients: [{ libelle: client }], servers: [{ ip: address, hostname: 'db-x', id_client: client, tags: [one, two] }] };
    assert.equal((await apply(document)).status, 200);
    // The tags in another order, padded texts: validated and compared, no change.
    const reordered = await unchanged(() => apply({ servers: [{ ip: ` ${address} `, hostname: ' db-x ', id_client: ` ${client}`, tags: [two, one] }] }));
    assert.equal(reordered.status, 200, reordered.text);
    assert.deepEqual(reordered.body.counts, { create: 0, update: 0, delete: 0, unchanged: 1 });
    // One tag left out: an update, even though every other field holds the stored value.
    const fewer = await unchanged(() => apply({ servers: [{ ip: address, hostname: 'db-x', id_client: client, tags: [one] }] }, '?dry_run=true'));
    assert.deepEqual(fewer.body.counts, { create: 0, update: 1, delete: 0, unchanged: 0 });
    assert.deepEqual(fewer.body.changes[0].fields, { tags: [[one, two], [one]] });
    // A tag named twice is refused, not taken as the stored set.
    const twice = await unchanged(() => apply({ servers: [{ ip: address, tags: [one, one] }] }));
    assert.equal(twice.status, 422, twice.text);
    assert.deepEqual(places(twice), ['servers[0].tags']);
    // An invalid value beside stored ones is refused, naming its place.
    const bad = await unchanged(() => apply({ servers: [{ ip: address, hostname: 'db-x', id_client: client, is_monitored: 'maybe' }] }));
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(places(bad), ['servers[0].is_monitored']);
  });

  test('a YAML body is read as its JSON twin', async () => {
    const tag = unique('yaml');
    const server1 = ip();
    const document = { tags: [{ name: tag }], servers: [{ ip: server1, tags: [tag] }] };
    const yaml = stringify(document);
    const dry = await unchanged(() => apply(yaml, '?dry_run=true'));
    assert.equal(dry.status, 200, dry.text);
    assert.deepEqual(dry.body.counts, { create: 2, update: 0, delete: 0, unchanged: 0 });
    assert.equal((await apply(yaml)).status, 200);
    const json = await unchanged(() => apply(document));
    assert.deepEqual(json.body.counts, { create: 0, update: 0, delete: 0, unchanged: 2 }, 'the JSON twin finds nothing to do');
    const broken = await unchanged(() => apply('tags: [\n  - name: x\n'));
    assert.equal(broken.status, 400);
    assert.equal(broken.body.code, 'MALFORMED_JSON');
    const other = await unchanged(() => server.request('POST', '/en/api/apply', { raw: 'tags=x', headers: { 'content-type': 'text/plain' }, unchecked: true }));
    assert.equal(other.status, 415);
  });

  test('servers moved off a client, and the client pruned, in one document', async () => {
    const [old, kept] = [unique('old-client'), unique('new-client')];
    const [a, b] = [ip(), ip()];
    assert.equal((await apply({ clients: [{ libelle: old }], servers: [{ ip: a, id_client: old }, { ip: b, id_client: old }] })).status, 200);
    const document = await storedDocument();
    document.clients = document.clients!.filter((client) => client.libelle !== old);
    document.clients.push({ libelle: kept });
    for (const entry of document.servers!) if (entry.id_client === old) entry.id_client = kept;
    const since = await lastChange();
    const reply = await apply({ clients: document.clients, servers: document.servers }, '?prune=clients');
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.body.counts.create, 1);
    assert.deepEqual(reply.body.counts.update, 2);
    assert.deepEqual(reply.body.counts.delete, 1);
    assert.deepEqual(reply.body.changes.at(-1), { action: 'delete', resource: 'clients', key: old, id: reply.body.changes.at(-1).id });
    assert.equal(await find('clients', old), undefined);
    const moved = await find('servers', `${a}:3306`);
    assert.equal(moved?.id_client, (await find('clients', kept))?.id);
    const recorded = await changesSince(since);
    assert.deepEqual(recorded.map((change) => `${change.action} ${change.resource}`), ['create clients', 'update servers', 'update servers', 'delete clients']);
    assert.equal(new Set(recorded.map((change) => change.request_id)).size, 1);
  });

  test('prune deletes, in each resource, the stored entries the document leaves out', async () => {
    const key = makeKeyPair('ED25519');
    const host = ip();
    const made = await apply({
      tags: [{ name: unique('gone-tag') }],
      clients: [{ libelle: unique('gone-client') }],
      environments: [{ libelle: unique('g').slice(0, 20), key: `g${counter}x${process.pid}`.slice(0, 13), class: 'danger', letter: 'G' }],
      servers: [{ ip: host }],
      aliases: [{ dns: `${unique('alias')}.example.com`, port: 3306, id_mysql_server: `${host}:3306` }],
      'ssh-keys': [{ type: key.type, pub: key.pub, 'privée': key.openssh }],
      'storage-areas': [{ ip: '192.0.2.77', path: `/srv/${unique('backups')}`, libelle: 'gone', ssh_key: key.fingerprint }],
    });
    assert.equal(made.status, 200, made.text);
    const createdKeys = new Map(made.body.changes.map((change: { resource: string; key: string }) => [change.resource, change.key]));
    // Dependents first: the alias before its server, the storage area before its key.
    for (const resource of ['aliases', 'storage-areas', 'ssh-keys', 'servers', 'environments', 'tags', 'clients']) {
      const document = await storedDocument();
      const gone = createdKeys.get(resource) as string;
      document[resource] = document[resource]!.filter((entry) => KEY_OF[resource]!(entry) !== gone);
      const reply = await apply(document, `?prune=${resource}`);
      assert.equal(reply.status, 200, `${resource}: ${reply.text}`);
      assert.deepEqual(reply.body.counts.delete, 1, resource);
      assert.deepEqual(reply.body.counts.create + reply.body.counts.update, 0, resource);
      assert.equal(await find(resource, gone), undefined, resource);
      if (resource === 'servers') assert.equal((await server.request('GET', `${API}/servers/${reply.body.changes[0].id}`)).body.item.is_deleted, 1, 'soft-deleted');
    }
    const everything = await storedDocument();
    const all = await unchanged(() => apply(everything, `?prune=${Object.keys(KEY_OF).join(',')}`));
    assert.equal(all.status, 200, all.text);
    assert.deepEqual([all.body.counts.create, all.body.counts.update, all.body.counts.delete], [0, 0, 0], 'the stored configuration applied to itself is no change');
  });

  test('a document entry matching a soft-deleted server creates a new server', async () => {
    const host = ip();
    const first = await apply({ servers: [{ ip: host }] });
    const id = first.body.changes[0].id;
    assert.equal((await server.request('DELETE', `${API}/servers/${id}`)).status, 200);
    const again = await apply({ servers: [{ ip: host }] });
    assert.equal(again.body.changes[0].action, 'create');
    assert.notEqual(again.body.changes[0].id, id);
  });

  test('every refusal is a 422 naming its place, and changes nothing', async () => {
    const tag = unique('refused');
    const key = makeKeyPair('ED25519');
    const cases: [Document, string, string[]][] = [
      [{ version: 2, tags: [{ name: tag }] }, '', ['version']],
      [{ tags: [{ name: tag }], hosts: [] }, '', ['hosts']],
      [{ tags: { name: tag } }, '', ['tags']],
      [{ tags: [{ name: tag }, 'x'] }, '', ['tags[1]']],
      [{ tags: [{ name: tag }], servers: [{ ip: ip() }, { ip: ip(), colour: 'red' }] }, '', ['servers[1].colour']],
      [{ tags: [{ name: tag }, { name: ` ${tag}` }] }, '', ['tags[1]']],
      [{ tags: [{ name: tag, color: 'red' }] }, '', ['tags[0].color']],
      [{ tags: [{ name: tag }], servers: [{ ip: ip(), id_client: unique('nowhere'), tags: [tag, unique('nowhere')] }] }, '', ['servers[0].id_client', 'servers[0].tags']],
      [{ servers: [{ ip: ip(), id_environment: 7 }] }, '', ['servers[0].id_environment']],
      [{ 'ssh-keys': [{ type: key.type, pub: key.pub, fingerprint: key.fingerprint }] }, '', ['ssh-keys[0].privée']],
      [{ aliases: [{ dns: 'a.example.com', port: 3306, id_mysql_server: '10.255.255.254:3306' }] }, '', ['aliases[0].id_mysql_server']],
      [{ environments: (await storedDocument()).environments!.filter((environment) => environment.key !== 'prod') }, '?prune=environments', ['environments']],
    ];
    for (const [document, query, expected] of cases) {
      const reply = await unchanged(() => apply(document, query));
      assert.equal(reply.status, 422, `${JSON.stringify(document).slice(0, 200)}: ${reply.text}`);
      assert.equal(reply.body.code, 'VALIDATION_FAILED');
      assert.deepEqual([...new Set(places(reply))], expected, reply.text);
    }
    const prune = await unchanged(() => apply({ tags: [] }, '?prune=tags,hosts'));
    assert.equal(prune.status, 400);
    assert.equal(prune.body.code, 'BAD_QUERY');
    // A clash with a stored entry is the write path's own refusal, placed in the document.
    const clash = await unchanged(() => apply({ tags: [{ name: tag }], environments: [{ libelle: 'Production', key: unique('e').slice(0, 13), class: 'info', letter: 'P' }] }));
    assert.equal(clash.status, 409, clash.text);
    assert.deepEqual(places(clash), ['environments[0].libelle']);
  });

  test('an apply with the ETag of a reviewed plan is refused 412 once anything changed since', async () => {
    const document = { tags: [{ name: unique('reviewed') }] };
    const plan = await apply(document, '?dry_run=true');
    const etag = plan.headers.get('etag')!;
    assert.equal((await apply(document, '?dry_run=true')).headers.get('etag'), etag, 'the same state and document, the same tag');
    assert.notEqual((await apply({ tags: [{ name: unique('other') }] }, '?dry_run=true')).headers.get('etag'), etag, 'another document, another tag');
    assert.equal((await server.request('POST', `${API}/clients`, { body: { libelle: unique('meanwhile') } })).status, 201);
    const refused = await unchanged(() => apply(document, '', { 'if-match': etag }));
    assert.equal(refused.status, 412, refused.text);
    assert.equal(refused.body.code, 'PRECONDITION_FAILED');
    const again = await apply(document, '?dry_run=true');
    const applied = await apply(document, '', { 'if-match': again.headers.get('etag')! });
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual(applied.body.changes.map((change: { key: string }) => change.key), again.body.changes.map((change: { key: string }) => change.key));
  });
});
