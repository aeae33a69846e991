// A write's references are looked up together, in one statement over every table pointed at
// (src/store/entry-rows.ts, lookUpReferenceStates): each id must still get its own answer, in the order the
// body names them, whatever else the same request points at.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { unique } from './support/change-stream.js';
import { serverPerSuite } from './support/server.js';

const SERVERS = '/en/api/config/servers';

describe('references looked up together', { timeout: 120_000 }, () => {
  const server = serverPerSuite();
  let octet = 0;
  const address = () => `10.78.${Math.floor(++octet / 256) % 256}.${octet % 256}`;
  const create = async (name: string, body: Record<string, unknown>): Promise<number> => {
    const reply = await server.request('POST', `/en/api/config/${name}`, { body });
    assert.equal(reply.status, 201, reply.text);
    return reply.body.id as number;
  };

  test('tags, a client and an environment: live ones pass, each missing one is named', async () => {
    const tags = [await create('tags', { name: unique('ref-a') }), await create('tags', { name: unique('ref-b') })];
    const client = await create('clients', { libelle: unique('ref-client') });
    const short = `r${Date.now() % 1_000_000_000}`;
    const environment = await create('environments', { libelle: short, key: short, class: 'warning', letter: 'R' });

    const created = await server.request('POST', SERVERS, { body: { ip: address(), port: 3306, hostname: unique('refs'), tags, id_client: client, id_environment: environment } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.item.tags, tags);
    assert.deepEqual((await server.request('GET', `${SERVERS}/${created.body.id}`)).body.item, created.body.item);

    const missing = 2_000_000_000;
    const refused = await server.request('POST', SERVERS, { body: { ip: address(), port: 3306, hostname: unique('refs'), tags: [tags[0], missing, missing - 1], id_client: missing, id_environment: environment } });
    assert.equal(refused.status, 422, refused.text);
    const named = refused.body.errors.map((error: { field: string; message: string }) => `${error.field}: ${error.message}`).sort();
    assert.deepEqual(named, [`id_client: clients ${missing} does not exist.`, `tags: tags ${missing - 1} does not exist.`, `tags: tags ${missing} does not exist.`]);

    const patched = await server.request('PATCH', `${SERVERS}/${created.body.id}`, { body: { add_tags: [missing] } });
    assert.equal(patched.status, 422, patched.text);
    assert.deepEqual(patched.body.errors.map((error: { field: string }) => error.field), ['add_tags']);
  });
});
