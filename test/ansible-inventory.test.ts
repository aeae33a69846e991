// Contract section 17, the Ansible inventory, over HTTP against the started service: groups
// per client, environment and tag (names made valid, names that become the same sharing the
// group, empty groups left out), host names (hostname when unique among live monitored
// servers, else ip_port), host variables with their empty values, the filters, ETag and 304,
// and read access.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';
import { ADMIN, INVENTORY, TOKEN_ENV, makeFleet, type Fleet } from './support/monitoring-fleet.js';
import { bearer } from './support/tokens.js';

const server = serverPerSuite({ env: TOKEN_ENV });
let fleet: Fleet;

const read = (path = INVENTORY, headers: Record<string, string> = {}) => server.request('GET', path, { headers: { ...bearer(fleet.read.token), ...headers } });
const sorted = (names: string[]) => [...names].sort();

describe('the Ansible inventory', () => {
  before(async () => {
    fleet = await makeFleet(server);
  });

  test('groups per client, environment and tag, every host in all, and every host’s variables', async () => {
    const reply = await read();
    assert.equal(reply.status, 200, reply.text);
    const { a, blank, twin1, twin2, v6 } = fleet.servers;
    const names = { a: 'db-a', blank: '127.0.0.12_23306', twin1: '127.0.0.13_23306', twin2: '127.0.0.14_23307', v6: 'v6' };
    assert.deepEqual(sorted(Object.keys(reply.body)), sorted(['all', '_meta', 'client_ACME_Inc_', 'env_prod', 'env_preprod', 'tag_galera_cluster', 'tag__n__code', 'tag_backup']));
    assert.deepEqual(reply.body.all.hosts, Object.values(names), 'in id order');
    // "ACME Inc." and "ACME-Inc," become the same group; "No servers" and the unused tag have no group.
    assert.deepEqual(sorted(reply.body.client_ACME_Inc_.hosts), sorted([names.a, names.twin1]));
    assert.deepEqual(reply.body.env_prod.hosts, [names.a, names.twin2]);
    assert.deepEqual(reply.body.env_preprod.hosts, [names.twin1]);
    assert.deepEqual(reply.body.tag_galera_cluster.hosts, [names.a, names.twin2]);
    assert.deepEqual(reply.body.tag__n__code.hosts, [names.a]);
    assert.deepEqual(reply.body.tag_backup.hosts, [names.twin1]);
    const hostvars = reply.body._meta.hostvars;
    assert.deepEqual(Object.keys(hostvars), Object.values(names));
    assert.deepEqual(hostvars['db-a'], {
      ansible_host: '127.0.0.11',
      mysql_port: 23306,
      pmacontrol_id: a.id,
      pmacontrol_client: 'ACME Inc.',
      pmacontrol_environment: 'prod',
      pmacontrol_tags: ['galera cluster', 'ünï-code'],
    });
    // No hostname: ip_port; and no client, environment or tag: null, null, [].
    assert.deepEqual(hostvars[names.blank], { ansible_host: '127.0.0.12', mysql_port: 23306, pmacontrol_id: blank.id, pmacontrol_client: null, pmacontrol_environment: null, pmacontrol_tags: [] });
    // Two monitored servers named "twin": both go by ip_port.
    assert.equal(hostvars[names.twin1].pmacontrol_id, twin1.id);
    assert.equal(hostvars[names.twin2].pmacontrol_id, twin2.id);
    // "v6" is also the hostname of a soft-deleted server, and "db-a" of an unmonitored one: still unique.
    assert.equal(hostvars.v6.ansible_host, '::1');
    assert.equal(hostvars.v6.pmacontrol_id, v6.id);
    for (const group of Object.keys(reply.body)) if (group !== '_meta') assert.match(group, /^[A-Za-z0-9_]+$/);
  });

  test('the filters narrow it; host names stay what they are in the whole inventory', async () => {
    const reply = await read(`${INVENTORY}?id_environment=1`);
    assert.equal(reply.status, 200, reply.text);
    // twin2 is the only "twin" here, but keeps its ip_port name.
    assert.deepEqual(reply.body.all.hosts, ['db-a', '127.0.0.14_23307']);
    assert.deepEqual(sorted(Object.keys(reply.body)), sorted(['all', '_meta', 'client_ACME_Inc_', 'env_prod', 'tag_galera_cluster', 'tag__n__code']));
    assert.deepEqual(reply.body.client_ACME_Inc_.hosts, ['db-a']);
    const tagged = await read(`${INVENTORY}?tag=${fleet.tags.galera}&id_client=${fleet.clients.acme}`);
    assert.deepEqual(tagged.body.all.hosts, ['db-a']);
    assert.deepEqual(tagged.body.tag__n__code.hosts, ['db-a'], 'a host’s other tags are groups too');
    const none = await read(`${INVENTORY}?q=nothing-matches`);
    assert.deepEqual(none.body, { all: { hosts: [] }, _meta: { hostvars: {} } });
    const refused = await read(`${INVENTORY}?limit=5`);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'BAD_QUERY');
  });

  test('ETag and If-None-Match: 304 while nothing shown changed', async () => {
    const first = await read();
    const etag = first.headers.get('etag')!;
    assert.equal((await read(INVENTORY, { 'if-none-match': etag })).status, 304);
    const moved = await server.request('PATCH', `/en/api/config/clients/${fleet.clients.acme}`, { body: { libelle: 'ACME Corp' }, headers: bearer(ADMIN) });
    assert.equal(moved.status, 200, moved.text);
    const after = await read(INVENTORY, { 'if-none-match': etag });
    assert.equal(after.status, 200);
    assert.deepEqual(after.body.client_ACME_Corp.hosts, ['db-a']);
    assert.equal(after.body._meta.hostvars['db-a'].pmacontrol_client, 'ACME Corp');
  });

  test('read scope: no token or an unknown one is 401', async () => {
    assert.equal((await server.request('GET', INVENTORY)).status, 401);
    assert.equal((await server.request('GET', INVENTORY, { headers: bearer('pmcapi_unknown') })).status, 401);
  });
});
