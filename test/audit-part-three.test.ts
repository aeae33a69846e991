// Findings of the black-box audit of contract part three (sections 16-18) that the other
// suites did not hold: each test is one request the contract answers and the service did not.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';
import { ADMIN, INVENTORY, TOKEN_ENV } from './support/monitoring-fleet.js';
import { bearer, createToken } from './support/tokens.js';

const server = serverPerSuite({ env: { ...TOKEN_ENV, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' } });
const admin = bearer(ADMIN);

describe('audit of part three', () => {
  test('a non-admin token on the webhook endpoints is told that webhooks need admin, not tokens', async () => {
    const write = await createToken(server, ADMIN, { name: 'audit-writer', scope: 'write' });
    for (const lang of ['en', 'fr']) {
      const reply = await server.request('GET', `/${lang}/api/webhooks`, { headers: bearer(write.token) });
      assert.equal(reply.status, 403, reply.text);
      assert.equal(reply.body.code, 'FORBIDDEN');
      assert.match(reply.body.detail, /webhook/i, 'the refusal names what the token may not do');
    }
  });

  // Host names were chosen from the hostnames several servers share only: a hostname equal to
  // another server's ip_port gave both servers one name, and Ansible one host of the two.
  test('every live monitored server is one host of the inventory, even when a hostname reads like another server’s ip_port', async () => {
    const create = async (body: Record<string, unknown>) => {
      const reply = await server.request('POST', '/en/api/config/servers', { body, headers: admin });
      assert.equal(reply.status, 201, reply.text);
      return reply.body.item.id as number;
    };
    // No hostname: named 127.0.0.41_23306. The other one's hostname is that very text.
    const blank = await create({ ip: '127.0.0.41', port: 23306 });
    const lookalike = await create({ ip: '127.0.0.42', port: 23306, hostname: '127.0.0.41_23306' });
    const reply = await server.request('GET', INVENTORY, { headers: admin });
    assert.equal(reply.status, 200, reply.text);
    const hosts: string[] = reply.body.all.hosts;
    assert.equal(new Set(hosts).size, hosts.length, `no host name twice in all: ${JSON.stringify(hosts)}`);
    const ids = Object.values(reply.body._meta.hostvars as Record<string, { pmacontrol_id: number }>).map((vars) => vars.pmacontrol_id);
    assert.ok(ids.includes(blank), 'the server without a hostname is in the inventory');
    assert.ok(ids.includes(lookalike), 'the server whose hostname looks like ip_port is in the inventory');
    assert.equal(Object.keys(reply.body._meta.hostvars).length, hosts.length);
    // The lookalike hostname is taken: its server goes by its own ip_port.
    assert.equal(reply.body._meta.hostvars['127.0.0.42_23306']?.pmacontrol_id, lookalike);
    assert.equal(reply.body._meta.hostvars['127.0.0.41_23306']?.pmacontrol_id, blank);
  });

  test('an empty YAML document to apply is refused as YAML, not as JSON', async () => {
    const reply = await server.request('POST', '/en/api/apply', { raw: '\n', headers: { ...admin, 'content-type': 'application/yaml' } });
    assert.equal(reply.status, 400, reply.text);
    assert.equal(reply.body.code, 'MALFORMED_JSON');
    assert.match(reply.body.detail, /YAML/);
  });

  // The same refusal as a JSON body's (audit of parts one and two): YAML's escapes can name a
  // lone surrogate too, which would be stored as U+FFFD.
  test('a YAML document to apply with a lone surrogate escape is refused as malformed; nothing stored', async () => {
    for (const name of ['audit-lone-\\ud800', 'audit-lone-\\U0000DC00']) {
      const reply = await server.request('POST', '/en/api/apply', { raw: `tags:\n  - name: "${name}"\n`, headers: { ...admin, 'content-type': 'application/yaml' } });
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.body.code, 'MALFORMED_JSON');
      assert.match(reply.body.detail, /surrogate/);
    }
    const stored = await server.request('GET', '/en/api/config/tags?q=audit-lone', { headers: admin });
    assert.equal(stored.body.total, 0, 'nothing stored');
    const pair = await server.request('POST', '/en/api/apply?dry_run=true', { raw: 'tags:\n  - name: "audit-pair-\\ud83c\\udf89"\n', headers: { ...admin, 'content-type': 'application/yaml' } });
    assert.equal(pair.status, 200, pair.text);
  });

  test('a stale If-Match on apply is 412 saying the plan changed, not that an entry did; nothing stored', async () => {
    const document = { tags: [{ name: 'audit-412' }] };
    const dry = await server.request('POST', '/en/api/apply?dry_run=true', { body: document, headers: admin });
    assert.equal(dry.status, 200, dry.text);
    const moved = await server.request('POST', '/en/api/config/tags', { body: { name: 'audit-412-meanwhile' }, headers: admin });
    assert.equal(moved.status, 201, moved.text);
    const reply = await server.request('POST', '/en/api/apply', { body: document, headers: { ...admin, 'if-match': dry.headers.get('etag')! } });
    assert.equal(reply.status, 412, reply.text);
    assert.equal(reply.body.code, 'PRECONDITION_FAILED');
    assert.match(reply.body.detail, /plan/);
    const stored = await server.request('GET', '/en/api/config/tags?name=audit-412', { headers: admin });
    assert.equal(stored.body.total, 0, 'nothing stored');
  });

  test('a webhook PATCH that sends the stored header values again changes nothing and records nothing', async () => {
    const created = await server.request('POST', '/en/api/webhooks', {
      body: { name: 'audit-headers', url: 'http://127.0.0.1:9/never', enabled: false, headers: { 'X-Token': 'one', 'X-Team': 'dba' } },
      headers: admin,
    });
    assert.equal(created.status, 201, created.text);
    const path = `/en/api/webhooks/${created.body.id}`;
    const history = async () => (await server.request('GET', `/en/api/changes?resource=webhooks&entry_id=${created.body.id}`, { headers: admin })).body.items.length;
    const before = await server.request('GET', path, { headers: admin });
    const recorded = await history();
    // The same values, names in another order.
    const same = await server.request('PATCH', path, { body: { headers: { 'X-Team': 'dba', 'X-Token': 'one' } }, headers: admin });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.item.updated_at, before.body.item.updated_at, 'updated_at kept');
    assert.equal(same.headers.get('etag'), before.headers.get('etag'), 'ETag kept');
    assert.equal(await history(), recorded, 'no change recorded');
    // Another value is a change, recorded with the header values named, never shown.
    const other = await server.request('PATCH', path, { body: { headers: { 'X-Team': 'dba', 'X-Token': 'two' } }, headers: admin });
    assert.equal(other.status, 200, other.text);
    assert.notEqual(other.headers.get('etag'), before.headers.get('etag'));
    const changes = (await server.request('GET', `/en/api/changes?resource=webhooks&entry_id=${created.body.id}`, { headers: admin })).body.items;
    assert.equal(changes.length, recorded + 1);
    assert.deepEqual(changes.at(-1).secrets_changed, ['headers']);
    assert.doesNotMatch(JSON.stringify(changes), /"two"|"one"/);
  });
});
