// Property-based fuzzing (fast-check): thousands of generated bodies, paths and query
// strings against every operation. Whatever is sent: no 5xx, no crash, an error is always
// problem+json, and a refused request leaves every byte of the database as it was.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { startServer, type Reply, type TestServer } from './support/server.js';
import { BACKEND } from './support/test-database.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';

// Fewer runs where each database snapshot is a round of queries rather than a file read.
const SCALE = Number(process.env.FUZZ_RUNS ?? (BACKEND === 'sqlite' ? 1 : 0.25));
const runs = (count: number): number => Math.max(50, Math.round(count * SCALE));

/** Every resource the registry describes: one added there is fuzzed here too. */
const RESOURCES = DEFAULT_REGISTRY.resources.map((resource) => resource.name);
const LANGS = ['fr', 'en', 'de', 'zh-cn', 'xx', ''];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND', 'SEARCH'];

let server: TestServer;
let fieldNames: Record<string, string[]> = {};
let snapshot = '';
let sent = 0;

before(async () => {
  server = await startServer();
  // Field names come from the service's own description, as a client would learn them.
  const document = (await server.request('GET', '/en/api/openApi')).body;
  const schemaOf = Object.fromEntries(DEFAULT_REGISTRY.resources.map((resource) => [resource.name, resource.schemaName]));
  fieldNames = Object.fromEntries(RESOURCES.map((r) => [r, Object.keys(document.components.schemas[`${schemaOf[r]}Create`].properties)]));
  // A few entries so that item paths and references hit something.
  await server.request('POST', '/en/api/config/servers', { body: { ip: '10.9.9.9' } });
  await server.request('POST', '/en/api/config/tags', { body: { name: 'seed' } });
  snapshot = await server.rows();
});
after(async () => {
  await server.stop();
  await server.cleanup();
});

/** Sends one request and checks the invariants; refusals must not have changed the data. */
async function check(method: string, path: string, options: { raw?: string; headers?: Record<string, string>; unchecked?: boolean }): Promise<void> {
  sent += 1;
  let reply: Reply;
  try {
    reply = await server.request(method, path, options);
  } catch (error) {
    assert.fail(`${method} ${path.slice(0, 120)}: no answer (${(error as Error).message}); server output:\n${server.logs().slice(-2000)}`);
  }
  assert.ok(reply.status < 500, `${method} ${path.slice(0, 200)} ${options.raw?.slice(0, 200) ?? ''} -> ${reply.status} ${reply.text.slice(0, 300)}`);
  if (reply.status >= 400) {
    if (method !== 'HEAD') assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/, `${method} ${path}`);
    const now = await server.rows();
    assert.ok(now === snapshot, `${method} ${path.slice(0, 200)} was refused (${reply.status}) but changed the database`);
  } else {
    snapshot = await server.rows();
  }
}

const controlText = fc.string({ unit: fc.constantFrom('\u0000', '\u0007', '\n', '\u001b', '\u0085', 'é', '😀', 'a', ' ', '"', '\\', "'", '%', '_') });
const hostile = fc.constantFrom(
  "'; DROP TABLE tags; --", '" OR 1=1 --', '../../etc/passwd', '${jndi:ldap://x}', '<script>', '%00', '\u202e', 'x'.repeat(300),
  '-----BEGIN OPENSSH PRIVATE KEY-----', 'ssh-ed25519 AAAA', '#ffffff', '10.0.0.1', '::1', 'db.example.com', '/srv/backup',
);
const scalar = fc.oneof(
  fc.string(), controlText, hostile, fc.integer(), fc.integer({ min: -1, max: 70000 }), fc.double(), fc.boolean(), fc.constant(null),
  fc.constantFrom(0, 1, 2, -0, 1e308, 2 ** 53, 22, 3306, 65535, 65536),
);
const value = fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.dictionary(fc.string(), scalar, { maxKeys: 3 }) });

function bodyFor(resource: string): fc.Arbitrary<string> {
  const known = fieldNames[resource] ?? [];
  const key = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...known) }, fc.constantFrom('id', 'created_at', 'updated_at', 'is_deleted', 'constructor', 'toString', 'privee', ''), fc.string({ maxLength: 12 }));
  const object = fc.dictionary(key, value, { maxKeys: 8 }).map((record) => JSON.stringify(record));
  const anyJson = fc.jsonValue({ maxDepth: 4 }).map((json) => JSON.stringify(json));
  const broken = fc.oneof(fc.string(), fc.constantFrom('{', '{"name":', '{"name":"a",}', '{"a":1,"a":2}', '{"__proto__":{}}', '[', 'nul', '{"name":"\\ud800"}'));
  return fc.oneof({ weight: 6, arbitrary: object }, { weight: 2, arbitrary: anyJson }, { weight: 1, arbitrary: broken });
}

const idSegment = fc.oneof(fc.constantFrom('1', '2', '99', '6', '7', '0', '-1', 'abc', '1.5', '2147483648', '%20', '..'), fc.nat({ max: 50 }).map(String), fc.string({ maxLength: 20 }).map(encodeURIComponent));

describe('fuzz', () => {
  test('generated bodies on POST, PUT and PATCH of every resource', async () => {
    const request = fc.constantFrom(...RESOURCES).chain((resource) =>
      fc.record({
        resource: fc.constant(resource),
        method: fc.constantFrom('POST', 'PUT', 'PATCH'),
        id: idSegment,
        body: bodyFor(resource),
        contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'),
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, async ({ resource, method, id, body, contentType }) => {
        const path = method === 'POST' ? `/en/api/config/${resource}` : `/en/api/config/${resource}/${id}`;
        await check(method, path, { raw: body, headers: { 'content-type': contentType } });
      }),
      { numRuns: runs(1200) },
    );
  });

  test('generated paths and methods', async () => {
    const segment = fc.oneof(fc.constantFrom(...RESOURCES, 'api', 'config', 'openApi', 'docs', ''), fc.string({ maxLength: 15 }).map(encodeURIComponent));
    const request = fc.record({
      method: fc.constantFrom(...METHODS),
      lang: fc.constantFrom(...LANGS),
      tail: fc.oneof(
        fc.tuple(fc.constantFrom(...RESOURCES), fc.option(idSegment)).map(([resource, id]) => `api/config/${resource}${id === null ? '' : `/${id}`}`),
        fc.array(segment, { maxLength: 5 }).map((parts) => parts.join('/')),
      ),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ method, lang, tail }) => {
        const body = ['POST', 'PUT', 'PATCH'].includes(method) ? { raw: '{}', headers: { 'content-type': 'application/json' } } : {};
        // Paths no client would build are outside the document; the invariants still hold.
        await check(method, `/${lang}/${tail}`, { ...body, unchecked: true });
      }),
      { numRuns: runs(600) },
    );
  });

  test('generated query strings on every list', async () => {
    const names = fc.oneof(fc.constantFrom('limit', 'offset', 'sort', 'q', 'include_deleted', 'name', 'port', 'ip', 'is_monitored', 'géolocalisation', 'privée', 'id'), fc.string({ maxLength: 10 }));
    const values = fc.oneof(fc.string({ maxLength: 30 }), hostile, fc.constantFrom('true', 'false', '-id', 'port,-ip', '1000', '1001', '0', '-1', 'null', ''), fc.integer().map(String));
    const request = fc.record({
      resource: fc.constantFrom(...RESOURCES),
      pairs: fc.array(fc.tuple(names, values), { maxLength: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ resource, pairs }) => {
        const query = pairs.map(([name, v]) => `${encodeURIComponent(name)}=${encodeURIComponent(v)}`).join('&');
        await check('GET', `/en/api/config/${resource}?${query}`, {});
      }),
      { numRuns: runs(600) },
    );
  });

  test('the server is still whole after all of it', async () => {
    assert.ok(sent >= runs(2400), `only ${sent} requests were sent`);
    assert.equal((await server.request('GET', '/healthz')).status, 200);
    assert.equal((await server.request('GET', '/en/api/config/environments')).body.total, 6);
  });
});
