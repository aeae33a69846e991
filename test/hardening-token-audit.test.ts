// Hardening: creating and revoking a managed token is audited (contract sections 13 and 14).
// Each writes a change record, resource `tokens`, in the transaction of the change: action
// create or delete, the token's id, the admin's name as actor, the request's id, the token as
// GET shows it (name, scope, expiry, allowed networks) before or after; never the secret, nor
// its plain SHA-256, nor its keyed digest, in the records, the stream or the database. The
// token command line's creations are recorded too, under the actor `token:create`.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createTokenDigester, loadTokenKey } from '../src/secrets/token-secrets.js';
import { openStream, type ChangeRecord } from './support/change-stream.js';
import { serverPerSuite } from './support/server.js';
import { TOKENS, assertHoldsNone, bearer, createToken, secret, tokenCreateCli, within } from './support/tokens.js';

const ADMIN = secret('adm');
const READ = secret('rd');
const CHANGES = '/en/api/changes';

describe('the change records of tokens', () => {
  const server = serverPerSuite({ env: { API_TOKENS: `root=admin:${ADMIN},reader=read:${READ}` } });
  const tokenRecords = async (query = ''): Promise<ChangeRecord[]> => {
    const reply = await server.request('GET', `${CHANGES}?resource=tokens${query}`, { headers: bearer(READ) });
    assert.equal(reply.status, 200, reply.text);
    return reply.body.items as ChangeRecord[];
  };

  test('a creation and a revocation each leave one record, in the list and the stream, without the secret or its digest', async () => {
    const stream = await openStream(server.url, `${CHANGES}/stream?resource=tokens`, { headers: bearer(READ) });
    try {
      assert.equal(stream.status, 200);
      const body = { name: 'collector-lyon', scope: 'read', expires_at: '2031-01-01T00:00:00.000Z', allowed_ips: ['10.30.0.0/16', '2001:db8:30::/48'] };
      const created = await server.request('POST', TOKENS, { body, headers: { ...bearer(ADMIN), 'x-request-id': 'audit-create-1' } });
      assert.equal(created.status, 201, created.text);
      const { id, token } = created.body as { id: number; token: string };
      const revoked = await server.request('DELETE', `${TOKENS}/${id}`, { headers: { ...bearer(ADMIN), 'x-request-id': 'audit-revoke-1' } });
      assert.equal(revoked.status, 200, revoked.text);

      const records = await tokenRecords(`&entry_id=${id}`);
      assert.deepEqual(
        records.map((r) => [r.action, r.resource, r.entry_id, r.actor, r.request_id]),
        [
          ['create', 'tokens', id, 'root', 'audit-create-1'],
          ['delete', 'tokens', id, 'root', 'audit-revoke-1'],
        ],
      );
      const [creation, revocation] = records as [ChangeRecord, ChangeRecord];
      assert.equal(creation.before, null);
      assert.deepEqual(creation.after, created.body.item, 'after: the token as GET showed it');
      assert.deepEqual(
        { name: creation.after!.name, scope: creation.after!.scope, expires_at: creation.after!.expires_at, allowed_ips: creation.after!.allowed_ips },
        { name: body.name, scope: body.scope, expires_at: body.expires_at, allowed_ips: body.allowed_ips },
      );
      assert.deepEqual(revocation.before, created.body.item);
      assert.equal(revocation.after, null);
      for (const record of records) assert.deepEqual(record.secrets_changed, []);

      const actions = await tokenRecords(`&action=delete&actor=root`);
      assert.ok(actions.some((r) => r.entry_id === id && r.action === 'delete'));

      await stream.waitFor('the two records on the stream', () => stream.changes.filter((r) => r.entry_id === id).length === 2);
      assert.deepEqual(
        stream.changes.filter((r) => r.entry_id === id),
        records,
        'the stream carries the same records',
      );

      // Neither the token nor its plain SHA-256 anywhere; its keyed digest only in its own
      // row while it existed (it is gone now), never in a record.
      const digest = createTokenDigester(loadTokenKey(undefined, join(server.dataDir, 'token.key'))).digest(token);
      const listed = await server.request('GET', `${CHANGES}?resource=tokens`, { headers: bearer(READ) });
      for (const text of [listed.text, stream.text]) {
        assertHoldsNone(text, [token], 'the change records');
        assert.ok(!text.includes(digest), 'the change records hold the keyed digest');
        assert.ok(!text.includes('digest'), 'the change records name a digest');
      }
      assertHoldsNone(await server.database.dump(), [token], 'the database');
      // Rows, not SQLite's file bytes: the revoked row may linger in its free pages.
      assert.ok(!(await server.database.rows()).includes(digest), 'a row holds the keyed digest of a revoked token');
    } finally {
      stream.close();
    }
  });

  test('a refused creation or revocation records nothing', async () => {
    const before = await tokenRecords();
    assert.equal((await server.request('POST', TOKENS, { body: { name: 'root', scope: 'read' }, headers: bearer(ADMIN) })).status, 409);
    assert.equal((await server.request('DELETE', `${TOKENS}/999999`, { headers: bearer(ADMIN) })).status, 404);
    assert.equal((await server.request('POST', TOKENS, { body: { name: 'nope', scope: 'read' }, headers: bearer(READ) })).status, 403);
    assert.deepEqual(await tokenRecords(), before);
  });

  test('a token made by the command line is recorded under the actor token:create', async () => {
    const made = tokenCreateCli(server, ['--name', 'first-admin', '--scope', 'admin']);
    assert.equal(made.status, 0, made.stderr);
    const token = made.stdout.trim();
    const records = (await tokenRecords('&actor=token:create')).filter((r) => r.after?.name === 'first-admin');
    assert.equal(records.length, 1, JSON.stringify(records));
    assert.equal(records[0]!.action, 'create');
    assert.match(records[0]!.request_id, /^[A-Za-z0-9._:-]{1,128}$/);
    assertHoldsNone(JSON.stringify(records), [token], 'the change record');
    // It works (once the server has polled it), and what it makes is recorded under its name.
    await within(5000, async () => (await server.request('GET', TOKENS, { headers: bearer(token) })).status === 200);
    const other = await createToken(server, token, { name: 'made-by-cli-admin', scope: 'read' });
    const creation = (await tokenRecords(`&entry_id=${other.id}`))[0]!;
    assert.equal(creation.actor, 'first-admin');
  });

  test('an unknown resource is still refused, and the document lists tokens', async () => {
    const refused = await server.request('GET', `${CHANGES}?resource=nothing`, { headers: bearer(READ) });
    assert.equal(refused.status, 400);
    assert.match(refused.body.detail ?? JSON.stringify(refused.body), /tokens/);
    const document = (await server.request('GET', '/en/api/openApi')).body;
    const parameter = document.paths['/{lang}/api/changes'].get.parameters.find((p: { name?: string }) => p.name === 'resource');
    assert.ok(parameter.schema.enum.includes('tokens'), JSON.stringify(parameter));
  });
});
