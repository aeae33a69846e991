// A small fleet for the monitoring integrations' tests (contract section 17), made through the
// API: names that need making valid, two client names that become one group name, a hostname
// two monitored servers share, one that only an unmonitored server shares, empty values,
// IPv6, and servers that must be left out (unmonitored, soft-deleted). Addresses are on
// loopback (127.0.0.x, ports nothing listens on), so that a Prometheus given these targets
// can only ever knock on this machine.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { TestServer } from './server.js';
import { bearer, createToken } from './tokens.js';

export const SD = '/en/api/sd/prometheus';
export const INVENTORY = '/en/api/inventory/ansible';
export const ADMIN = `pmc-admin-${randomBytes(16).toString('hex')}`;
/** The environment of the service's API_TOKENS: access is on from the start. */
export const TOKEN_ENV = { API_TOKENS: `fleet-admin=admin:${ADMIN}` };

export interface Fleet {
  tags: Record<'galera' | 'unicode' | 'backup' | 'unused', number>;
  clients: Record<'acme' | 'acmeToo' | 'empty', number>;
  servers: Record<'a' | 'blank' | 'twin1' | 'twin2' | 'off' | 'gone' | 'v6', Record<string, any>>;
  /** A read token, and the id to revoke it by. */
  read: { token: string; id: number };
}

async function create(server: TestServer, resource: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const reply = await server.request('POST', `/en/api/config/${resource}`, { body, headers: bearer(ADMIN) });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.item;
}

export async function makeFleet(server: TestServer): Promise<Fleet> {
  const tag = async (name: string) => (await create(server, 'tags', { name })).id as number;
  const client = async (libelle: string) => (await create(server, 'clients', { libelle })).id as number;
  const tags = { galera: await tag('galera cluster'), unicode: await tag('ünï-code'), backup: await tag('backup'), unused: await tag('unused') };
  // "ACME Inc." and "ACME-Inc," both become client_ACME_Inc_.
  const clients = { acme: await client('ACME Inc.'), acmeToo: await client('ACME-Inc,'), empty: await client('No servers') };
  const server_ = (body: Record<string, unknown>) => create(server, 'servers', body);
  const servers = {
    a: await server_({ ip: '127.0.0.11', port: 23306, hostname: 'db-a', id_client: clients.acme, id_environment: 1, tags: [tags.galera, tags.unicode], ssl: true, is_proxy: true }),
    blank: await server_({ ip: '127.0.0.12', port: 23306 }),
    twin1: await server_({ ip: '127.0.0.13', port: 23306, hostname: 'twin', id_client: clients.acmeToo, id_environment: 2, tags: [tags.backup] }),
    twin2: await server_({ ip: '127.0.0.14', port: 23307, hostname: 'twin', id_environment: 1, tags: [tags.galera] }),
    // Shares db-a's hostname, but is not monitored: db-a keeps its name.
    off: await server_({ ip: '127.0.0.15', port: 23306, hostname: 'db-a', is_monitored: false, id_client: clients.acme }),
    gone: await server_({ ip: '127.0.0.16', port: 23306, hostname: 'v6', id_client: clients.acme, tags: [tags.galera] }),
    v6: await server_({ ip: '::1', port: 23308, hostname: 'v6', is_vip: true }),
  };
  const deleted = await server.request('DELETE', `/en/api/config/servers/${servers.gone.id}`, { headers: bearer(ADMIN) });
  assert.equal(deleted.status, 200, deleted.text);
  const made = await createToken(server, ADMIN, { name: `sd-reader-${randomBytes(4).toString('hex')}`, scope: 'read' });
  return { tags, clients, servers, read: { token: made.token, id: made.id } };
}

/** The servers an answer must show: live and monitored, by id. */
export function monitored(fleet: Fleet): Record<string, any>[] {
  const { a, blank, twin1, twin2, v6 } = fleet.servers;
  return [a, blank, twin1, twin2, v6];
}
