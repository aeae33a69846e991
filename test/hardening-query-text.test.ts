// Hardening (outside probe): query text a client chooses never reaches the database in a form
// it fails on. A NUL (PostgreSQL's driver refuses it), another control character, a date-time
// filter that is no date-time, a forged cursor whose values are not of their columns' type:
// each is a 400 BAD_QUERY naming the parameter, on every backend, and no 500 (whose log line
// would have quoted the client's text). Every resource of the registry, every parameter.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CompiledResource } from '../src/registry/compiled-resource.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';
import { API_TOKENS } from '../src/store/api-token-definition.js';
import { serverPerSuite, type Reply } from './support/server.js';

const server = serverPerSuite();

/** Written into every refused value: it must show up in no log line. */
const MARKER = 'probe-marker';
const CONTROLS = ['\u0000', '\u001b', '\u007f', '\u0085'];

function assertRefused(reply: Reply, parameter: string, what: string): void {
  assert.equal(reply.status, 400, `${what}: ${reply.status} ${reply.text}`);
  assert.equal(reply.body.code, 'BAD_QUERY', what);
  assert.ok(String(reply.body.detail).includes(`"${parameter}"`), `${what}: the detail names ${parameter}: ${reply.body.detail}`);
}

/** Every query parameter a list of `resource` takes, but `include_deleted` where deletes are hard. */
function listParameters(resource: CompiledResource): string[] {
  const fields = resource.shownFields
    .filter(([, field]) => field.link === undefined)
    .map(([name]) => name);
  const links = Object.values(resource.fields).flatMap((field) => (field.link === undefined ? [] : [field.link.filter]));
  return ['q', 'sort', 'after', 'limit', 'offset', ...(resource.deletion.mode === 'soft' ? ['include_deleted'] : []), ...fields, ...links];
}

const cursor = (s: string, v: unknown[]): string => Buffer.from(JSON.stringify({ s, v })).toString('base64url');

const lists = [...DEFAULT_REGISTRY.resources.map((resource) => [`/en/api/config/${resource.name}`, resource] as const), ['/en/api/tokens', API_TOKENS] as const];

describe('a control character in any query value is 400 BAD_QUERY naming the parameter', () => {
  test('every list parameter of every resource (and of the tokens)', async () => {
    for (const [path, resource] of lists) {
      for (const parameter of listParameters(resource)) {
        for (const control of CONTROLS) {
          const value = encodeURIComponent(`${MARKER}${control}x`);
          assertRefused(await server.request('GET', `${path}?${parameter}=${value}`), parameter, `${path} ${parameter} U+${control.codePointAt(0)!.toString(16)}`);
        }
      }
    }
  });

  test('a lone NUL as q, and in the write and read parameters', async () => {
    for (const [path] of lists) assertRefused(await server.request('GET', `${path}?q=%00`), 'q', `${path}?q=%00`);
    assertRefused(await server.request('POST', '/en/api/config/tags?dry_run=%00', { body: { name: 'x' } }), 'dry_run', 'dry_run');
    assertRefused(await server.request('DELETE', '/en/api/config/tags?id=1%00'), 'id', 'bulk delete id');
  });

  test('every parameter of /changes, of an entry history and of the change stream', async () => {
    const made = await server.request('POST', '/en/api/config/tags', { body: { name: 'history-of-one' } });
    assert.equal(made.status, 201, made.text);
    const endpoints: [string, string[]][] = [
      ['/en/api/changes', ['since', 'resource', 'entry_id', 'actor', 'action', 'limit']],
      [`/en/api/config/tags/${made.body.item.id}/history`, ['limit', 'offset']],
      ['/en/api/changes/stream', ['since', 'resource', 'entry_id', 'actor', 'action']],
    ];
    for (const [path, parameters] of endpoints) {
      for (const parameter of parameters) {
        for (const control of CONTROLS) {
          assertRefused(await server.request('GET', `${path}?${parameter}=${encodeURIComponent(`${MARKER}${control}`)}`), parameter, `${path} ${parameter}`);
        }
      }
    }
    for (const value of ['%00', 'a%00', '%01', '%C2%85']) assertRefused(await server.request('GET', `/en/api/changes?actor=${value}`), 'actor', `actor=${value}`);
  });
});

describe('created_at and updated_at filters take an ISO 8601 date-time, nothing else', () => {
  test('any other text is 400 naming the parameter, on every resource', async () => {
    const refused = ['%00', 'x', MARKER, '1 OR 1=1', '2026-02-30T00:00:00Z', '2026-11-25T23:59:60Z', '2026-11-25', '2026-11-25 10:00:00Z', '2026-11-25T10:00:00', '0', 'true'];
    for (const [path] of lists) {
      for (const parameter of ['created_at', 'updated_at']) {
        for (const value of refused) assertRefused(await server.request('GET', `${path}?${parameter}=${encodeURIComponent(value)}`), parameter, `${path}?${parameter}=${value}`);
      }
    }
    assertRefused(await server.request('GET', '/en/api/tokens?last_used_at=x'), 'last_used_at', 'last_used_at=x');
  });

  test('the instant an entry shows, in any offset, finds it', async () => {
    const made = await server.request('POST', '/en/api/config/tags', { body: { name: 'dated' } });
    assert.equal(made.status, 201, made.text);
    const { id, created_at: createdAt, updated_at: updatedAt } = made.body.item as { id: number; created_at: string; updated_at: string };
    // The same instant two hours ahead of UTC.
    const ahead = new Date(Date.parse(createdAt) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    for (const query of [`created_at=${createdAt}`, `updated_at=${updatedAt}`, `created_at=${encodeURIComponent(ahead)}`, `created_at=${createdAt.toLowerCase()}`]) {
      const reply = await server.request('GET', `/en/api/config/tags?${query}`);
      assert.equal(reply.status, 200, `${query}: ${reply.text}`);
      assert.deepEqual(
        reply.body.items.map((item: { id: number }) => item.id),
        [id],
        query,
      );
    }
    const none = await server.request('GET', '/en/api/config/tags?created_at=2001-01-01T00:00:00Z');
    assert.equal(none.status, 200);
    assert.equal(none.body.total, 0);
  });
});

describe('a forged cursor is 400 BAD_QUERY naming `after`', () => {
  test('values not of their columns’ type, on every resource', async () => {
    for (const [path] of lists) {
      const forged = [
        cursor('-id', [`1 OR 1=1 ${MARKER}`]),
        cursor('-id', ['1']),
        cursor('-id', [1.5]),
        cursor('-id', [2 ** 31]),
        cursor('-id', [-(2 ** 31) - 1]),
        cursor('-id', [true]),
        cursor('-id', [{}]),
        cursor('created_at,id', [42, 1]),
        cursor('created_at,id', [`${MARKER}\u0000`, 1]),
        cursor('created_at,id', ['2026-01-01T00:00:00.000Z', MARKER]),
      ];
      for (const after of forged) {
        const sort = after === forged[7] || after === forged[8] || after === forged[9] ? '&sort=created_at' : '';
        assertRefused(await server.request('GET', `${path}?after=${after}${sort}`), 'after', `${path} ${Buffer.from(after, 'base64url').toString()}`);
      }
    }
  });

  test('cursors the service made still walk every page, whatever the sort', async () => {
    const made: number[] = [];
    for (const [index, hostname] of ['walk-b', 'walk-a', 'walk-c'].entries()) {
      const reply = await server.request('POST', '/en/api/config/servers', { body: { ip: `192.0.2.${71 + index}`, port: 3306, hostname, is_monitored: index !== 1 } });
      assert.equal(reply.status, 201, reply.text);
      made.push(reply.body.item.id);
    }
    for (const sort of ['-id', 'hostname', '-is_monitored', 'created_at', '-updated_at,port', 'id_client']) {
      const seen: number[] = [];
      let next: string | null = null;
      do {
        const reply: Reply = await server.request('GET', `/en/api/config/servers?limit=1&sort=${sort}${next === null ? '' : `&after=${next}`}`);
        assert.equal(reply.status, 200, `${sort}: ${reply.text}`);
        seen.push(...reply.body.items.map((item: { id: number }) => item.id));
        next = reply.body.next;
      } while (next !== null && seen.length < 10);
      assert.deepEqual([...seen].sort(), [...made].sort(), sort);
    }
  });
});

test('no 500 was answered, and no refused value reached the log', async () => {
  const logs = server.logs();
  assert.ok(!logs.includes(MARKER), 'client-chosen text in the log');
  assert.ok(!/"status":5\d\d/.test(logs), 'a 500 was answered');
});
