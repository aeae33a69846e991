// Errors over HTTP (contract sections 2, 3, 4 and 6): the problem+json body, languages,
// 404 / 405 / 415 / 400 / 413 / 422 / 409, and that a refused request changes nothing.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startServer, type Reply, type TestServer } from './support/server.js';
import { makeKeyPair } from './support/ssh-keys.js';

let server: TestServer;
let counter = 0;
const PID = process.pid.toString(36);
/** A short unique lower-case token (fits environments.key, 13 characters). */
const unique = (prefix: string): string => `${prefix}${PID}${(++counter).toString(36)}`;
const nextIp = (): string => {
  const n = ++counter;
  return `10.${(process.pid % 200) + 20}.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
};

const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';
const ONE_MIB = 1024 * 1024;
// PATCH and DELETE of a collection are bulk writes (section 12); PUT is not served there.
const COLLECTION_ALLOW = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';
const ITEM_ALLOW = 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS';
const OPENAPI_ALLOW = 'GET, HEAD, OPTIONS';
const STANDARD_TITLES: Record<number, string[]> = {
  400: ['Bad Request'],
  404: ['Not Found'],
  405: ['Method Not Allowed'],
  409: ['Conflict'],
  413: ['Content Too Large', 'Payload Too Large'],
  415: ['Unsupported Media Type'],
  422: ['Unprocessable Content'],
};

// Ids of entries the valid bodies below depend on, made in `before`.
let liveServerId = 0;
let sshKeyId = 0;

before(async () => {
  server = await startServer();
  liveServerId = (await create('servers', { ip: nextIp(), port: 3306 })).id;
  sshKeyId = (await newSshKey()).id;
});

after(async () => {
  await server.stop();
  await server.cleanup();
});

// ---------------------------------------------------------------------------------------
// helpers

const api = (resource: string, id?: number | string, lang = 'en'): string =>
  id === undefined ? `/${lang}/api/config/${resource}` : `/${lang}/api/config/${resource}/${id}`;

async function create(resource: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const reply = await server.request('POST', api(resource), { body });
  assert.equal(reply.status, 201, `creating ${resource}: ${reply.text}`);
  return reply.body.item;
}

async function newSshKey(): Promise<Record<string, any>> {
  const pair = makeKeyPair('ED25519');
  return create('ssh-keys', { type: pair.type, pub: pair.pub, 'privée': pair.openssh });
}

/** A fresh valid POST body for each resource, with unique values. */
function validBody(resource: string): Record<string, unknown> {
  switch (resource) {
    case 'tags':
      return { name: unique('tag-') };
    case 'clients':
      return { libelle: unique('client-') };
    case 'environments':
      return { libelle: unique('env-'), key: unique('k'), class: 'info', letter: 'Z' };
    case 'aliases':
      return { id_mysql_server: liveServerId, dns: `${unique('alias-')}.example.com`, port: 3306 };
    case 'storage-areas':
      return { ip: '192.0.2.10', path: '/srv/backups', libelle: unique('area-'), ssh_key: sshKeyId };
    case 'servers':
      return { ip: nextIp(), port: 3306 };
    case 'ssh-keys': {
      const pair = makeKeyPair('ED25519');
      return { type: pair.type, pub: pair.pub, 'privée': pair.openssh };
    }
    default:
      throw new Error(`no valid body for ${resource}`);
  }
}

/** Checks the problem+json body of section 6 and returns it. */
function assertProblem(reply: Reply, status: number, code: string): Record<string, any> {
  assert.equal(reply.status, status, `expected ${status} ${code}, got ${reply.status}: ${reply.text}`);
  assert.equal(reply.headers.get('content-type'), PROBLEM_TYPE);
  const body = reply.body as Record<string, any> | undefined;
  assert.ok(body !== undefined && typeof body === 'object', `problem body is JSON: ${reply.text}`);
  assert.equal(body.type, 'about:blank');
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.ok(STANDARD_TITLES[status]?.includes(body.title), `title ${JSON.stringify(body.title)} for ${status}`);
  assert.equal(typeof body.detail, 'string');
  assert.ok(body.detail.length > 0, 'detail is not empty');
  assert.equal(body.error, body.detail, '`error` repeats `detail`');
  return body;
}

/** The `errors` array is there, well formed, and names exactly these fields. */
function assertFields(body: Record<string, any>, fields: readonly string[]): void {
  assert.ok(Array.isArray(body.errors), `errors is an array: ${JSON.stringify(body)}`);
  for (const problem of body.errors as unknown[]) {
    const p = problem as Record<string, unknown>;
    assert.equal(typeof p.field, 'string', JSON.stringify(p));
    assert.equal(typeof p.message, 'string', JSON.stringify(p));
    assert.ok((p.message as string).length > 0, 'message is not empty');
  }
  const named = (body.errors as { field: string }[]).map((p) => p.field).sort();
  assert.deepEqual(named, [...fields].sort(), `errors name ${JSON.stringify(named)}`);
}

function assertInvalid(reply: Reply, fields: readonly string[]): Record<string, any> {
  const body = assertProblem(reply, 422, 'VALIDATION_FAILED');
  assert.equal(body.title, 'Unprocessable Content');
  assertFields(body, fields);
  return body;
}

function assertConflict(reply: Reply, fields: readonly string[]): Record<string, any> {
  const body = assertProblem(reply, 409, 'CONFLICT');
  assertFields(body, fields);
  return body;
}

/** The whole list (every entry, including soft-deleted servers) as the API shows it. */
async function listAll(resource: string): Promise<{ total: number; items: Record<string, any>[] }> {
  const query = resource === 'servers' ? '?limit=1000&include_deleted=true' : '?limit=1000';
  const reply = await server.request('GET', `${api(resource)}${query}`);
  assert.equal(reply.status, 200, reply.text);
  return { total: reply.body.total, items: reply.body.items };
}

async function getEntry(resource: string, id: number): Promise<Record<string, any>> {
  const reply = await server.request('GET', api(resource, id));
  assert.equal(reply.status, 200, reply.text);
  return reply.body.item;
}

/** Runs `refuse` and checks that the list and the given entries are exactly as before. */
async function assertUnchanged(resource: string, ids: readonly number[], refuse: () => Promise<void>): Promise<void> {
  const listBefore = await listAll(resource);
  const entriesBefore = await Promise.all(ids.map((id) => getEntry(resource, id)));
  await refuse();
  const listAfter = await listAll(resource);
  assert.equal(listAfter.total, listBefore.total, `${resource} total unchanged`);
  assert.deepEqual(listAfter.items, listBefore.items, `${resource} list unchanged`);
  for (const [index, id] of ids.entries()) {
    assert.deepEqual(await getEntry(resource, id), entriesBefore[index], `${resource} ${id} unchanged`);
  }
}

/** A request through node:http, for what fetch cannot send (a body without Content-Type). */
function rawRequest(
  method: string,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; contentType: string | undefined; text: string; body: any }> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method, headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], text, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_HEADER = { 'content-type': 'application/json' };

// ---------------------------------------------------------------------------------------

describe('the problem+json error body (section 6)', () => {
  test('a 422 carries type, title, status, code, detail, error and errors[{field, message}]', async () => {
    const reply = await server.request('POST', api('tags'), { body: { name: unique('t-'), color: 'red' } });
    const body = assertInvalid(reply, ['color']);
    assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'error', 'errors', 'status', 'title', 'type']);
    assert.deepEqual(Object.keys(body.errors[0]).sort(), ['field', 'message']);
  });

  test('a 404 is problem+json too', async () => {
    const body = assertProblem(await server.request('GET', api('tags', 2147483647)), 404, 'NOT_FOUND');
    assert.equal(body.title, 'Not Found');
  });

  test('a 409 CONFLICT carries errors naming the field', async () => {
    const name = unique('dup-');
    await create('tags', { name });
    const body = assertConflict(await server.request('POST', api('tags'), { body: { name } }), ['name']);
    assert.equal(body.title, 'Conflict');
  });
});


/** Sends a body over the limit. The service answers 413 as soon as it reads the headers and
 * closes the connection; a client still writing the body then may fail with EPIPE, and Node's
 * fetch drops the answer it had (seen once in a full run). Such a try is sent again, at most
 * three times: the answer checked is always one the service gave. */
async function tooLarge<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (attempt >= 3 || (code !== 'EPIPE' && code !== 'ECONNRESET')) throw error;
    }
  }
}
describe('{lang}: languages of the platform (section 2)', () => {
  const accepted = ['fr', 'en', 'cs', 'da', 'de', 'es', 'fi', 'it', 'ja', 'nl', 'pl', 'pt', 'ru', 'uk', 'zh-cn'];

  for (const lang of accepted) {
    test(`/${lang}/ is accepted`, async () => {
      const list = await server.request('GET', api('tags', undefined, lang));
      assert.equal(list.status, 200, list.text);
      assert.ok(Array.isArray(list.body.items));
      const doc = await server.request('GET', `/${lang}/api/openApi`);
      assert.equal(doc.status, 200);
    });
  }

  for (const lang of ['xx', 'FR', 'En', 'english', 'zh-CN', 'zh', 'fr-fr', 'e n']) {
    test(`/${lang}/ is 404 NOT_FOUND`, async () => {
      const path = `/${encodeURIComponent(lang)}/api/config/tags`;
      assertProblem(await server.request('GET', path), 404, 'NOT_FOUND');
      assertProblem(await server.request('POST', path, { body: validBody('tags') }), 404, 'NOT_FOUND');
      assertProblem(await server.request('GET', `/${encodeURIComponent(lang)}/api/openApi`), 404, 'NOT_FOUND');
    });
  }

  test('an unknown language on the item path is 404 even with a valid id', async () => {
    const tag = await create('tags', validBody('tags'));
    assertProblem(await server.request('GET', `/xx/api/config/tags/${tag.id}`), 404, 'NOT_FOUND');
  });

  /** The same refused request under several languages. */
  const sameError: { label: string; send: (lang: string) => Promise<Reply>; status: number; code: string }[] = [
    { label: '422', status: 422, code: 'VALIDATION_FAILED', send: (lang) => server.request('POST', api('tags', undefined, lang), { body: {} }) },
    { label: '404 unknown resource', status: 404, code: 'NOT_FOUND', send: (lang) => server.request('GET', api('nosuch', undefined, lang)) },
    { label: '404 unknown id', status: 404, code: 'NOT_FOUND', send: (lang) => server.request('GET', api('tags', 2147483647, lang)) },
    { label: '405', status: 405, code: 'METHOD_NOT_ALLOWED', send: (lang) => server.request('PUT', api('tags', undefined, lang), { body: validBody('tags') }) },
    {
      label: '415',
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      send: (lang) => server.request('POST', api('tags', undefined, lang), { raw: '{}', headers: { 'content-type': 'text/plain' } }),
    },
    {
      label: '400',
      status: 400,
      code: 'MALFORMED_JSON',
      send: (lang) => server.request('POST', api('tags', undefined, lang), { raw: '{', headers: JSON_HEADER }),
    },
    {
      label: '413',
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      send: (lang) => tooLarge(() => server.request('POST', api('tags', undefined, lang), { raw: `{"name":"${'x'.repeat(ONE_MIB)}"}`, headers: JSON_HEADER })),
    },
    {
      label: '409',
      status: 409,
      code: 'CONFLICT',
      send: (lang) => server.request('POST', api('environments', undefined, lang), { body: { libelle: 'Production', key: unique('k'), class: 'info', letter: 'Q' } }),
    },
  ];

  for (const { label, send, status, code } of sameError) {
    test(`${label}: detail in French under /fr/, English under /en/, and /de/ and /zh-cn/ as /en/`, async () => {
      const fr = assertProblem(await send('fr'), status, code);
      const en = assertProblem(await send('en'), status, code);
      const de = assertProblem(await send('de'), status, code);
      const zh = assertProblem(await send('zh-cn'), status, code);
      assert.notEqual(fr.detail, en.detail, 'French differs from English');
      assert.equal(de.detail, en.detail, 'German falls back to English');
      assert.equal(zh.detail, en.detail, 'Chinese falls back to English');
      if (en.errors !== undefined) {
        assert.deepEqual(de.errors, en.errors);
        assert.equal(fr.errors.length, en.errors.length);
        for (const [index, problem] of (en.errors as { field: string; message: string }[]).entries()) {
          assert.equal(fr.errors[index].field, problem.field);
          assert.notEqual(fr.errors[index].message, problem.message, `errors[${index}].message translated`);
        }
      }
    });
  }
});

describe('404 NOT_FOUND (section 2)', () => {
  for (const path of ['/en/api/config/nosuch', '/en/api/config/Tags', '/en/api/config/tag', '/en/api/config/nosuch/1']) {
    test(`unknown resource: GET ${path}`, async () => {
      assertProblem(await server.request('GET', path), 404, 'NOT_FOUND');
    });
  }

  test('unknown resource is 404 for POST, PUT, PATCH and DELETE too', async () => {
    assertProblem(await server.request('POST', '/en/api/config/nosuch', { body: {} }), 404, 'NOT_FOUND');
    assertProblem(await server.request('PUT', '/en/api/config/nosuch/1', { body: {} }), 404, 'NOT_FOUND');
    assertProblem(await server.request('PATCH', '/en/api/config/nosuch/1', { body: {} }), 404, 'NOT_FOUND');
    assertProblem(await server.request('DELETE', '/en/api/config/nosuch/1'), 404, 'NOT_FOUND');
  });

  for (const path of ['/', '/en', '/en/api', '/en/api/config', '/en/api/other/tags', '/en/config/tags', '/en/api/config/tags/1/extra', '/nothing/here/at/all']) {
    test(`unknown path: GET ${path}`, async () => {
      assertProblem(await server.request('GET', path), 404, 'NOT_FOUND');
    });
  }

  for (const id of ['abc', '0', '-1', '1.5', '01', '2147483648', '1e3', '0x1', '99999999999']) {
    test(`id "${id}" is not a positive integer: 404 for GET, PUT, PATCH and DELETE`, async () => {
      const path = `/en/api/config/tags/${id}`;
      assertProblem(await server.request('GET', path), 404, 'NOT_FOUND');
      assertProblem(await server.request('PUT', path, { body: validBody('tags') }), 404, 'NOT_FOUND');
      assertProblem(await server.request('PATCH', path, { body: { color: '#000000' } }), 404, 'NOT_FOUND');
      assertProblem(await server.request('DELETE', path), 404, 'NOT_FOUND');
    });
  }

  test('missing id (empty id segment) is 404', async () => {
    assertProblem(await server.request('GET', '/en/api/config/tags//'), 404, 'NOT_FOUND');
    assertProblem(await server.request('DELETE', '/en/api/config/tags//'), 404, 'NOT_FOUND');
  });

  test('a well-formed id with no entry is 404 for GET, PUT, PATCH and DELETE', async () => {
    const path = api('tags', 2147483647);
    assertProblem(await server.request('GET', path), 404, 'NOT_FOUND');
    assertProblem(await server.request('PUT', path, { body: validBody('tags') }), 404, 'NOT_FOUND');
    assertProblem(await server.request('PATCH', path, { body: { color: '#000000' } }), 404, 'NOT_FOUND');
    assertProblem(await server.request('DELETE', path), 404, 'NOT_FOUND');
  });
});

describe('405 METHOD_NOT_ALLOWED with Allow; OPTIONS (section 2)', () => {
  for (const method of ['PUT']) {
    test(`${method} on a collection is 405, Allow: ${COLLECTION_ALLOW}`, async () => {
      const reply = await server.request(method, api('tags'), { body: validBody('tags') });
      assertProblem(reply, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(reply.headers.get('allow'), COLLECTION_ALLOW);
    });
  }

  test(`POST on an item is 405, Allow: ${ITEM_ALLOW} (existing or not)`, async () => {
    const tag = await create('tags', validBody('tags'));
    for (const id of [tag.id, 2147483647]) {
      const reply = await server.request('POST', api('tags', id), { body: validBody('tags') });
      assertProblem(reply, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(reply.headers.get('allow'), ITEM_ALLOW);
    }
  });

  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    test(`${method} on /{lang}/api/openApi is 405, Allow: ${OPENAPI_ALLOW}`, async () => {
      const reply = await server.request(method, '/en/api/openApi', method === 'DELETE' ? {} : { body: {} });
      assertProblem(reply, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(reply.headers.get('allow'), OPENAPI_ALLOW);
    });
  }

  test('405 is decided before the body: POST on an item with text/plain is 405, not 415', async () => {
    const reply = await server.request('POST', api('tags', 1), { raw: 'not json', headers: { 'content-type': 'text/plain' } });
    assertProblem(reply, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(reply.headers.get('allow'), ITEM_ALLOW);
  });

  test('OPTIONS answers 204 with Allow on the three path shapes', async () => {
    for (const [path, allow] of [
      [api('tags'), COLLECTION_ALLOW],
      [api('servers', 1), ITEM_ALLOW],
      ['/fr/api/openApi', OPENAPI_ALLOW],
    ] as const) {
      const reply = await server.request('OPTIONS', path);
      assert.equal(reply.status, 204, `${path}: ${reply.text}`);
      assert.equal(reply.headers.get('allow'), allow, path);
      assert.equal(reply.text, '');
    }
  });

  test('HEAD on a collection and an item is allowed (not 405)', async () => {
    const tag = await create('tags', validBody('tags'));
    assert.equal((await server.request('HEAD', api('tags'))).status, 200);
    assert.equal((await server.request('HEAD', api('tags', tag.id))).status, 200);
  });

  test('an unknown language or resource is 404 even with a wrong method', async () => {
    assertProblem(await server.request('DELETE', '/xx/api/config/tags'), 404, 'NOT_FOUND');
    assertProblem(await server.request('POST', '/xx/api/config/tags/1', { body: {} }), 404, 'NOT_FOUND');
    assertProblem(await server.request('PUT', '/en/api/config/nosuch', { body: {} }), 404, 'NOT_FOUND');
    assertProblem(await server.request('POST', '/en/api/config/nosuch/1', { body: {} }), 404, 'NOT_FOUND');
    assertProblem(await server.request('DELETE', '/xx/api/openApi'), 404, 'NOT_FOUND');
    assertProblem(await server.request('OPTIONS', '/xx/api/config/tags'), 404, 'NOT_FOUND');
    assertProblem(await server.request('OPTIONS', '/en/api/config/nosuch'), 404, 'NOT_FOUND');
  });
});

describe('415 UNSUPPORTED_MEDIA_TYPE (section 6)', () => {
  const tagBody = (): string => JSON.stringify(validBody('tags'));

  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'text/json']) {
    test(`POST with Content-Type: ${contentType} is 415`, async () => {
      const reply = await server.request('POST', api('tags'), { raw: tagBody(), headers: { 'content-type': contentType } });
      assertProblem(reply, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  }

  test('POST with a JSON body and no Content-Type header is 415', async () => {
    const reply = await rawRequest('POST', api('tags'), tagBody(), {});
    assert.equal(reply.status, 415, reply.text);
    assert.equal(reply.contentType, PROBLEM_TYPE);
    assert.equal(reply.body?.code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.equal(reply.body?.error, reply.body?.detail);
  });

  test('POST with neither a body nor a Content-Type header is 415', async () => {
    assertProblem(await server.request('POST', api('tags')), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('PUT and PATCH without application/json are 415', async () => {
    const tag = await create('tags', validBody('tags'));
    for (const method of ['PUT', 'PATCH']) {
      assertProblem(
        await server.request(method, api('tags', tag.id), { raw: tagBody(), headers: { 'content-type': 'text/plain' } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      assertProblem(
        await server.request(method, api('tags', tag.id), { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      const bare = await rawRequest(method, api('tags', tag.id), tagBody(), {});
      assert.equal(bare.status, 415, `${method} without Content-Type: ${bare.text}`);
      assert.equal(bare.body?.code, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  test('415 comes before parsing: invalid JSON sent as text/plain is 415, not 400', async () => {
    const reply = await server.request('POST', api('tags'), { raw: '{{{', headers: { 'content-type': 'text/plain' } });
    assertProblem(reply, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('Content-Type: application/json; charset=utf-8 is accepted (POST, PUT, PATCH)', async () => {
    const headers = { 'content-type': 'application/json; charset=utf-8' };
    const name = unique('charset-');
    const post = await server.request('POST', api('tags'), { raw: JSON.stringify({ name }), headers });
    assert.equal(post.status, 201, post.text);
    assert.equal(post.body.item.name, name);
    const put = await server.request('PUT', api('tags', post.body.id), { raw: JSON.stringify({ name: `${name}-put` }), headers });
    assert.equal(put.status, 200, put.text);
    const patch = await server.request('PATCH', api('tags', post.body.id), { raw: JSON.stringify({ color: '#010203' }), headers });
    assert.equal(patch.status, 200, patch.text);
    assert.equal(patch.body.item.color, '#010203');
  });
});

describe('400 MALFORMED_JSON (section 6)', () => {
  for (const raw of ['{', '{"name":}', "{'name':'x'}", '{"name":"x",}', '{"name":"x"} trailing', 'undefined', 'name=x', '{"name":"x"']) {
    test(`POST with invalid JSON ${JSON.stringify(raw)} is 400`, async () => {
      assertProblem(await server.request('POST', api('tags'), { raw, headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
    });
  }

  test('PUT and PATCH with invalid JSON are 400', async () => {
    const tag = await create('tags', validBody('tags'));
    for (const method of ['PUT', 'PATCH']) {
      assertProblem(await server.request(method, api('tags', tag.id), { raw: '{"name":', headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
    }
  });

  test('an empty body with Content-Type: application/json is 400 (POST, PUT, PATCH)', async () => {
    const tag = await create('tags', validBody('tags'));
    assertProblem(await server.request('POST', api('tags'), { raw: '', headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
    assertProblem(await server.request('PUT', api('tags', tag.id), { raw: '', headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
    assertProblem(await server.request('PATCH', api('tags', tag.id), { raw: '', headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
  });

  test('a body with a top-level __proto__ key is 400', async () => {
    const raw = `{"name":"${unique('proto-')}","__proto__":{"polluted":true}}`;
    assertProblem(await server.request('POST', api('tags'), { raw, headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
  });

  test('a body with a nested __proto__ key is 400', async () => {
    const raw = `{"name":"${unique('proto-')}","extra":{"__proto__":{"polluted":true}}}`;
    assertProblem(await server.request('POST', api('tags'), { raw, headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
  });

  test('a PATCH with a __proto__ key is 400', async () => {
    const tag = await create('tags', validBody('tags'));
    const raw = '{"__proto__":{"color":"#000000"}}';
    assertProblem(await server.request('PATCH', api('tags', tag.id), { raw, headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
  });
});

describe('413 PAYLOAD_TOO_LARGE (section 6)', () => {
  test('a POST body of 1 MiB + 1 byte is 413', async () => {
    const raw = `{"name":"${'x'.repeat(ONE_MIB - 10)}"}`;
    assert.equal(Buffer.byteLength(raw), ONE_MIB + 1);
    assertProblem(await server.request('POST', api('tags'), { raw, headers: JSON_HEADER }), 413, 'PAYLOAD_TOO_LARGE');
  });

  test('a body of exactly 1 MiB is read (422 for the too long name, not 413)', async () => {
    const raw = `{"name":"${'x'.repeat(ONE_MIB - 11)}"}`;
    assert.equal(Buffer.byteLength(raw), ONE_MIB);
    assertInvalid(await server.request('POST', api('tags'), { raw, headers: JSON_HEADER }), ['name']);
  });

  test('PUT and PATCH bodies over 1 MiB are 413', async () => {
    const tag = await create('tags', validBody('tags'));
    const raw = JSON.stringify({ name: 'n', padding: 'p'.repeat(ONE_MIB + 100) });
    for (const method of ['PUT', 'PATCH']) {
      assertProblem(await server.request(method, api('tags', tag.id), { raw, headers: JSON_HEADER }), 413, 'PAYLOAD_TOO_LARGE');
    }
  });
});

describe('422 VALIDATION_FAILED: the body as a whole', () => {
  for (const [label, raw] of [
    ['an empty array', '[]'],
    // An array of objects is a bulk create (section 12); one of scalars is still refused.
    ['an array of scalars', '[1]'],
    ['a string', '"x"'],
    ['null', 'null'],
    ['a number', '42'],
    ['a boolean', 'true'],
  ] as const) {
    test(`a body that is ${label} is 422 with field ""`, async () => {
      assertInvalid(await server.request('POST', api('tags'), { raw, headers: JSON_HEADER }), ['']);
    });
  }

  test('PUT and PATCH with a body that is not an object are 422 with field ""', async () => {
    const tag = await create('tags', validBody('tags'));
    assertInvalid(await server.request('PUT', api('tags', tag.id), { raw: '[]', headers: JSON_HEADER }), ['']);
    assertInvalid(await server.request('PATCH', api('tags', tag.id), { raw: 'null', headers: JSON_HEADER }), ['']);
  });
});

describe('422 VALIDATION_FAILED: unknown fields (a typo is never dropped)', () => {
  for (const [resource, typo] of [
    ['tags', 'colour'],
    ['tags', 'Name'],
    ['clients', 'is_monitor'],
    ['environments', 'classe'],
    ['aliases', 'id_server'],
    ['storage-areas', 'geolocalisation'],
    ['servers', 'hostnme'],
    ['servers', 'password'],
    ['ssh-keys', 'privee'],
  ] as const) {
    test(`${resource}: unknown field "${typo}" is 422 naming it`, async () => {
      const body = { ...validBody(resource), [typo]: resource === 'ssh-keys' ? 'x' : '#000000' };
      assertInvalid(await server.request('POST', api(resource), { body }), [typo]);
    });
  }

  test('tags: is_deleted is unknown outside servers', async () => {
    assertInvalid(await server.request('POST', api('tags'), { body: { ...validBody('tags'), is_deleted: 0 } }), ['is_deleted']);
  });

  test('an unknown field is refused by PUT and PATCH as well', async () => {
    const tag = await create('tags', validBody('tags'));
    assertInvalid(await server.request('PUT', api('tags', tag.id), { body: { ...validBody('tags'), colour: '#000000' } }), ['colour']);
    assertInvalid(await server.request('PATCH', api('tags', tag.id), { body: { colour: '#000000' } }), ['colour']);
  });
});

describe('422 VALIDATION_FAILED: missing required fields', () => {
  const required: Record<string, string[]> = {
    tags: ['name'],
    clients: ['libelle'],
    environments: ['class', 'key', 'letter', 'libelle'],
    aliases: ['dns', 'id_mysql_server', 'port'],
    'storage-areas': ['ip', 'libelle', 'path', 'ssh_key'],
    servers: ['ip'],
    'ssh-keys': ['privée', 'pub', 'type'],
  };
  for (const [resource, fields] of Object.entries(required)) {
    test(`${resource}: POST {} names exactly ${fields.join(', ')}`, async () => {
      assertInvalid(await server.request('POST', api(resource), { body: {} }), fields);
    });
    for (const field of fields) {
      test(`${resource}: POST without ${field} is 422 naming it`, async () => {
        const body = validBody(resource);
        delete body[field];
        assertInvalid(await server.request('POST', api(resource), { body }), [field]);
      });
    }
  }

  test('PUT is a full replacement: a missing required field is 422', async () => {
    const env = await create('environments', validBody('environments'));
    assertInvalid(await server.request('PUT', api('environments', env.id), { body: { libelle: unique('env-'), class: 'info' } }), ['key', 'letter']);
  });

  test('null for a required field is 422', async () => {
    assertInvalid(await server.request('POST', api('tags'), { body: { name: null } }), ['name']);
    assertInvalid(await server.request('POST', api('servers'), { body: { ip: null } }), ['ip']);
  });
});

describe('422 VALIDATION_FAILED: wrong types', () => {
  const cases: [resource: string, field: string, value: unknown][] = [
    ['tags', 'name', 123],
    ['tags', 'name', true],
    ['tags', 'name', ['a']],
    ['tags', 'name', { a: 1 }],
    ['tags', 'color', 0xffffff],
    ['clients', 'libelle', 42],
    ['clients', 'logo', null],
    ['clients', 'is_monitored', 'true'],
    ['clients', 'is_monitored', 'false'],
    ['clients', 'is_monitored', null],
    ['environments', 'class', 1],
    ['environments', 'letter', 7],
    ['aliases', 'id_mysql_server', String(1)],
    ['aliases', 'port', '3306'],
    ['aliases', 'dns', 42],
    ['storage-areas', 'port', '22'],
    ['storage-areas', 'ssh_key', 'one'],
    ['storage-areas', 'géolocalisation', 5],
    ['servers', 'ip', 167772161],
    ['servers', 'port', '3306'],
    ['servers', 'hostname', 12],
    ['servers', 'ssl', 'true'],
    ['servers', 'ssh', 'yes'],
    ['servers', 'is_vip', {}],
    ['ssh-keys', 'type', 1],
  ];
  for (const [resource, field, value] of cases) {
    test(`${resource}.${field} = ${JSON.stringify(value)} is 422`, async () => {
      assertInvalid(await server.request('POST', api(resource), { body: { ...validBody(resource), [field]: value } }), [field]);
    });
  }
});

describe('422 VALIDATION_FAILED: booleans', () => {
  test('0 and 1 are accepted and shown as false and true', async () => {
    const client = await create('clients', { libelle: unique('bool-'), is_monitored: 0 });
    assert.equal(client.is_monitored, false);
    const srv = await create('servers', { ip: nextIp(), ssl: 1, ssh: 0, is_proxy: 1, is_vip: 0, is_monitored: 0 });
    assert.deepEqual(
      { ssl: srv.ssl, ssh: srv.ssh, is_proxy: srv.is_proxy, is_vip: srv.is_vip, is_monitored: srv.is_monitored },
      { ssl: true, ssh: false, is_proxy: true, is_vip: false, is_monitored: false },
    );
    const patched = await server.request('PATCH', api('clients', client.id), { body: { is_monitored: 1 } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.item.is_monitored, true);
  });

  for (const value of [2, -1, 0.5, '1', '0', 'true', 'yes', null]) {
    test(`a boolean field refuses ${JSON.stringify(value)}`, async () => {
      assertInvalid(await server.request('POST', api('servers'), { body: { ip: nextIp(), ssl: value } }), ['ssl']);
    });
  }

  test('PATCH refuses 2 for a boolean', async () => {
    const client = await create('clients', { libelle: unique('bool-') });
    assertInvalid(await server.request('PATCH', api('clients', client.id), { body: { is_monitored: 2 } }), ['is_monitored']);
  });
});

describe('422 VALIDATION_FAILED: ranges, formats and lengths (section 3)', () => {
  const long = (n: number): string => 'a'.repeat(n);
  // A valid DNS name of `n` characters (labels of at most 63).
  const dnsOfLength = (n: number): string => {
    const labels: string[] = [];
    let left = n;
    while (left > 0) {
      const size = Math.min(63, left);
      labels.push('d'.repeat(size));
      left -= size + 1;
    }
    const name = labels.join('.');
    return name.length === n ? name : `${name.slice(0, n - 1)}e`;
  };

  const refused: [resource: string, field: string, value: unknown][] = [
    // ports
    ['servers', 'port', 0],
    ['servers', 'port', 65536],
    ['servers', 'port', -1],
    ['servers', 'port', 3306.5],
    ['aliases', 'port', 0],
    ['aliases', 'port', 65536],
    ['storage-areas', 'port', 0],
    ['storage-areas', 'port', 70000],
    // tags colours
    ['tags', 'color', 'red'],
    ['tags', 'color', '#12345'],
    ['tags', 'color', '#GGGGGG'],
    ['tags', 'color', '#1234567'],
    ['tags', 'color', '123456'],
    ['tags', 'color', ''],
    ['tags', 'background', 'blue'],
    ['tags', 'background', '#abc'],
    // environments
    ['environments', 'key', 'Prod2'],
    ['environments', 'key', 'UPPER'],
    ['environments', 'key', long(14)],
    ['environments', 'key', 'a b'],
    ['environments', 'key', 'a.b'],
    ['environments', 'key', ''],
    ['environments', 'class', 'purple'],
    ['environments', 'class', 'Danger'],
    ['environments', 'class', ''],
    ['environments', 'letter', 'ab'],
    ['environments', 'letter', ''],
    ['environments', 'letter', ' '],
    ['environments', 'libelle', long(21)],
    // aliases
    ['aliases', 'dns', 'not a dns'],
    ['aliases', 'dns', 'bad_label!.example.com'],
    ['aliases', 'dns', ''],
    ['aliases', 'dns', dnsOfLength(201)],
    ['aliases', 'id_mysql_server', 0],
    ['aliases', 'id_mysql_server', -5],
    ['aliases', 'id_mysql_server', 1.5],
    // storage areas
    ['storage-areas', 'ip', '999.1.1.1'],
    ['storage-areas', 'ip', 'backup.example.com'],
    ['storage-areas', 'ip', '10.0.0'],
    ['storage-areas', 'ip', ''],
    ['storage-areas', 'path', 'relative/path'],
    ['storage-areas', 'path', ''],
    ['storage-areas', 'path', '~/backups'],
    ['storage-areas', 'libelle', long(65)],
    ['storage-areas', 'géolocalisation', long(251)],
    // servers
    ['servers', 'ip', 'my server'],
    ['servers', 'ip', '10.0.0.1 10.0.0.2'],
    ['servers', 'ip', ''],
    ['servers', 'ip', 'db_01!'],
    ['servers', 'ip', long(256)],
    ['servers', 'hostname', long(201)],
    // lengths
    ['tags', 'name', long(51)],
    ['tags', 'name', '\u{1F600}'.repeat(51)],
    ['tags', 'name', ''],
    ['clients', 'libelle', long(101)],
    ['clients', 'libelle', ''],
    ['clients', 'logo', long(251)],
    // ssh keys
    ['ssh-keys', 'type', 'DSA'],
    ['ssh-keys', 'type', 'ed25519'],
    ['ssh-keys', 'pub', 'not a key'],
    ['ssh-keys', 'fingerprint', 'MD5:00:11'],
  ];
  for (const [resource, field, value] of refused) {
    const shown = typeof value === 'string' && value.length > 30 ? `<${[...value].length} characters${/[^\x00-\x7f]/.test(value) ? ', non-ASCII' : ''}>` : JSON.stringify(value);
    test(`${resource}.${field} = ${shown} is 422`, async () => {
      assertInvalid(await server.request('POST', api(resource), { body: { ...validBody(resource), [field]: value } }), [field]);
    });
  }

  const accepted: [resource: string, field: string, value: unknown][] = [
    ['servers', 'port', 1],
    ['servers', 'port', 65535],
    ['tags', 'color', '#a1B2c3'],
    ['tags', 'name', long(50)],
    ['tags', 'name', '\u{1F600}'.repeat(50)],
    ['environments', 'key', 'abcdefghij_-9'],
    ['environments', 'letter', 'é'],
    ['aliases', 'dns', dnsOfLength(200)],
    ['storage-areas', 'ip', '2001:db8::10'],
    ['storage-areas', 'géolocalisation', null],
    ['storage-areas', 'géolocalisation', 'Paris, FR'],
    ['clients', 'logo', ''],
    ['servers', 'hostname', ''],
  ];
  for (const [resource, field, value] of accepted) {
    const shown = typeof value === 'string' && value.length > 30 ? `<${[...value].length} characters${/[^\x00-\x7f]/.test(value) ? ', non-ASCII' : ''}>` : JSON.stringify(value);
    test(`${resource}.${field} = ${shown} is accepted (the boundary is where the contract says)`, async () => {
      const body = { ...validBody(resource), [field]: value };
      // 50 characters, unique: a length counts characters, not UTF-16 units.
      if (resource === 'tags' && field === 'name' && value === long(50)) body.name = `${unique('n')}${long(50)}`.slice(0, 50);
      const reply = await server.request('POST', api(resource), { body });
      assert.equal(reply.status, 201, reply.text);
    });
  }

  test('strings are trimmed: surrounding spaces do not count towards the length and are not stored', async () => {
    const name = `${unique('trim')}${long(50)}`.slice(0, 50);
    const reply = await server.request('POST', api('tags'), { body: { name: `   ${name}\t ` } });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.item.name, name);
  });

  for (const [resource, field, value] of [
    ['tags', 'name', '   '],
    ['clients', 'libelle', ' \t\n '],
    ['environments', 'libelle', '  '],
    ['storage-areas', 'libelle', '\u00a0 '],
    ['aliases', 'dns', '   '],
    ['servers', 'ip', ' '],
  ] as const) {
    test(`${resource}.${field} made only of spaces is 422 (trimmed to empty)`, async () => {
      assertInvalid(await server.request('POST', api(resource), { body: { ...validBody(resource), [field]: value } }), [field]);
    });
  }

  for (const [resource, field, value] of [
    ['tags', 'name', 'bad\u0001name'],
    ['tags', 'name', 'bell\u0007'],
    ['tags', 'name', 'line\nbreak'],
    ['tags', 'name', 'tab\tinside'],
    ['tags', 'name', 'nul\u0000'],
    ['tags', 'name', 'del\u007f'],
    ['tags', 'name', 'c1\u009b'],
    ['clients', 'libelle', 'esc\u001b[31m'],
    ['clients', 'logo', 'logo\r\n.png'],
    ['environments', 'libelle', 'x\u0002'],
    ['storage-areas', 'libelle', 'x\u0003'],
    ['storage-areas', 'path', '/srv/\u0001backups'],
    ['storage-areas', 'géolocalisation', 'Paris\u0007'],
    ['servers', 'hostname', 'db\u000b01'],
  ] as const) {
    test(`${resource}.${field} with a control character ${JSON.stringify(value)} is 422`, async () => {
      assertInvalid(await server.request('POST', api(resource), { body: { ...validBody(resource), [field]: value } }), [field]);
    });
  }

  test('a PATCH with a bad format is 422 naming the field', async () => {
    const tag = await create('tags', validBody('tags'));
    assertInvalid(await server.request('PATCH', api('tags', tag.id), { body: { color: '#GGGGGG' } }), ['color']);
    const srv = await create('servers', validBody('servers'));
    assertInvalid(await server.request('PATCH', api('servers', srv.id), { body: { port: 65536 } }), ['port']);
  });
});

describe('422 VALIDATION_FAILED: several problems are reported at once', () => {
  test('tags: bad name, bad color, bad background and a typo all appear in errors', async () => {
    const reply = await server.request('POST', api('tags'), {
      body: { name: 'x'.repeat(51), color: 'red', background: '#12345', colour: '#000000' },
    });
    const body = assertInvalid(reply, ['background', 'color', 'colour', 'name']);
    assert.match(body.detail, /4/);
  });

  test('environments: missing, unknown and malformed fields together', async () => {
    const reply = await server.request('POST', api('environments'), { body: { key: 'BAD KEY', class: 'purple', colour: 'x' } });
    assertInvalid(reply, ['class', 'colour', 'key', 'letter', 'libelle']);
  });

  test('servers: ip, port and booleans together', async () => {
    const reply = await server.request('POST', api('servers'), { body: { ip: 'not an ip!', port: 0, ssl: 2, is_vip: '1' } });
    assertInvalid(reply, ['ip', 'is_vip', 'port', 'ssl']);
  });

  test('PUT: id mismatch and a bad field together', async () => {
    const tag = await create('tags', validBody('tags'));
    const reply = await server.request('PUT', api('tags', tag.id), { body: { id: tag.id + 1, name: '', color: 'red' } });
    assertInvalid(reply, ['color', 'id', 'name']);
  });
});

describe('read-only fields and the id of the path (section 2)', () => {
  test('PUT with an id different from the path is 422 naming id', async () => {
    const tag = await create('tags', validBody('tags'));
    assertInvalid(await server.request('PUT', api('tags', tag.id), { body: { id: tag.id + 1000, name: unique('t-') } }), ['id']);
  });

  test('PATCH with an id different from the path is 422 naming id', async () => {
    const client = await create('clients', validBody('clients'));
    assertInvalid(await server.request('PATCH', api('clients', client.id), { body: { id: 99 } }), ['id']);
  });

  test('PUT and PATCH with the id of the path, created_at and updated_at are accepted (ignored)', async () => {
    const tag = await create('tags', validBody('tags'));
    const name = unique('ro-');
    const put = await server.request('PUT', api('tags', tag.id), {
      body: { id: tag.id, name, created_at: '2000-01-01T00:00:00.000Z', updated_at: '2000-01-01T00:00:00.000Z' },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.item.id, tag.id);
    assert.equal(put.body.item.name, name);
    assert.equal(put.body.item.created_at, tag.created_at);
    assert.notEqual(put.body.item.updated_at, '2000-01-01T00:00:00.000Z');
    const patch = await server.request('PATCH', api('tags', tag.id), { body: { id: tag.id, created_at: 'garbage', color: '#0a0b0c' } });
    assert.equal(patch.status, 200, patch.text);
    assert.equal(patch.body.item.created_at, tag.created_at);
    assert.equal(patch.body.item.color, '#0a0b0c');
  });

  test('a GET result sent back as a PUT body is accepted (servers, with is_deleted)', async () => {
    const srv = await create('servers', validBody('servers'));
    const put = await server.request('PUT', api('servers', srv.id), { body: { ...srv, hostname: 'sent-back' } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.item.hostname, 'sent-back');
    assert.equal(put.body.item.is_deleted, 0);
  });

  test('POST ignores id, created_at and updated_at', async () => {
    const reply = await server.request('POST', api('tags'), {
      body: { ...validBody('tags'), id: 123456, created_at: '2000-01-01T00:00:00.000Z', updated_at: '2000-01-01T00:00:00.000Z' },
    });
    assert.equal(reply.status, 201, reply.text);
    assert.notEqual(reply.body.item.id, 123456);
    assert.notEqual(reply.body.item.created_at, '2000-01-01T00:00:00.000Z');
    assert.equal((await server.request('GET', api('tags', 123456))).status, 404);
  });

  test('POST servers with is_deleted: 1 ignores it (the server is created live)', async () => {
    const reply = await server.request('POST', api('servers'), { body: { ...validBody('servers'), is_deleted: 1 } });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.item.is_deleted, 0);
  });

  test('POST servers with is_deleted: 0 is accepted', async () => {
    const reply = await server.request('POST', api('servers'), { body: { ...validBody('servers'), is_deleted: 0 } });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.item.is_deleted, 0);
  });

  test('a whole server sent back as a POST body (id, timestamps, is_deleted) creates a copy', async () => {
    const original = await create('servers', validBody('servers'));
    const reply = await server.request('POST', api('servers'), { body: { ...original, port: original.port + 1 } });
    assert.equal(reply.status, 201, reply.text);
    assert.notEqual(reply.body.id, original.id);
    assert.equal(reply.body.item.is_deleted, 0);
  });

  test('PATCH servers with is_deleted: 1 ignores it (no deletion through PATCH)', async () => {
    const srv = await create('servers', validBody('servers'));
    const patch = await server.request('PATCH', api('servers', srv.id), { body: { is_deleted: 1, hostname: 'still-live' } });
    assert.equal(patch.status, 200, patch.text);
    assert.equal(patch.body.item.is_deleted, 0);
    assert.equal((await getEntry('servers', srv.id)).is_deleted, 0);
  });
});

describe('references (section 3): aliases.id_mysql_server, storage-areas.ssh_key', () => {
  test('an alias to a server that does not exist is 422 naming id_mysql_server', async () => {
    const body = { ...validBody('aliases'), id_mysql_server: 2147483000 };
    assertInvalid(await server.request('POST', api('aliases'), { body }), ['id_mysql_server']);
  });

  test('an alias to a deleted server is 422 naming id_mysql_server', async () => {
    const srv = await create('servers', validBody('servers'));
    const deleted = await server.request('DELETE', api('servers', srv.id));
    assert.equal(deleted.status, 200, deleted.text);
    const body = { ...validBody('aliases'), id_mysql_server: srv.id };
    assertInvalid(await server.request('POST', api('aliases'), { body }), ['id_mysql_server']);
  });

  test('PUT and PATCH of an alias to a missing or deleted server are 422', async () => {
    const alias = await create('aliases', validBody('aliases'));
    const srv = await create('servers', validBody('servers'));
    assert.equal((await server.request('DELETE', api('servers', srv.id))).status, 200);
    assertInvalid(await server.request('PATCH', api('aliases', alias.id), { body: { id_mysql_server: srv.id } }), ['id_mysql_server']);
    assertInvalid(
      await server.request('PUT', api('aliases', alias.id), { body: { id_mysql_server: 2147483000, dns: alias.dns, port: alias.port } }),
      ['id_mysql_server'],
    );
  });

  test('an alias to a live server is accepted', async () => {
    const reply = await server.request('POST', api('aliases'), { body: validBody('aliases') });
    assert.equal(reply.status, 201, reply.text);
  });

  test('a storage area with an SSH key that does not exist is 422 naming ssh_key', async () => {
    const body = { ...validBody('storage-areas'), ssh_key: 2147483000 };
    assertInvalid(await server.request('POST', api('storage-areas'), { body }), ['ssh_key']);
  });

  test('PATCH of a storage area to a missing SSH key is 422', async () => {
    const area = await create('storage-areas', validBody('storage-areas'));
    assertInvalid(await server.request('PATCH', api('storage-areas', area.id), { body: { ssh_key: 2147483000 } }), ['ssh_key']);
  });

  test('a missing reference and a bad field are reported together', async () => {
    const body = { ...validBody('storage-areas'), ssh_key: 2147483000, path: 'relative' };
    const reply = await server.request('POST', api('storage-areas'), { body });
    assert.equal(reply.status, 422, reply.text);
    // The format problem must be reported; the missing reference may be checked after it.
    assert.ok((reply.body.errors as { field: string }[]).some((p) => p.field === 'path'));
  });
});

describe('409 CONFLICT: unique values (section 3)', () => {
  test('tags.name', async () => {
    const name = unique('uniq-');
    await create('tags', { name });
    assertConflict(await server.request('POST', api('tags'), { body: { name } }), ['name']);
  });

  test('tags.name compares trimmed values', async () => {
    const name = unique('uniq-');
    await create('tags', { name });
    assertConflict(await server.request('POST', api('tags'), { body: { name: `  ${name}  ` } }), ['name']);
  });

  test('tags.name taken by another entry on PUT and PATCH', async () => {
    const taken = await create('tags', validBody('tags'));
    const other = await create('tags', validBody('tags'));
    assertConflict(await server.request('PUT', api('tags', other.id), { body: { name: taken.name } }), ['name']);
    assertConflict(await server.request('PATCH', api('tags', other.id), { body: { name: taken.name } }), ['name']);
  });

  test('keeping its own unique value is no conflict (PUT same name)', async () => {
    const tag = await create('tags', validBody('tags'));
    const reply = await server.request('PUT', api('tags', tag.id), { body: { name: tag.name, color: '#000000' } });
    assert.equal(reply.status, 200, reply.text);
  });

  test('clients.libelle (including the built-in "system")', async () => {
    const libelle = unique('client-');
    await create('clients', { libelle });
    assertConflict(await server.request('POST', api('clients'), { body: { libelle } }), ['libelle']);
    assertConflict(await server.request('POST', api('clients'), { body: { libelle: 'system' } }), ['libelle']);
  });

  test('environments.libelle', async () => {
    const body = { ...validBody('environments'), libelle: 'Production' };
    assertConflict(await server.request('POST', api('environments'), { body }), ['libelle']);
  });

  test('environments.key', async () => {
    const body = { ...validBody('environments'), key: 'prod' };
    assertConflict(await server.request('POST', api('environments'), { body }), ['key']);
  });

  test('environments: libelle and key both taken are both named', async () => {
    const body = { libelle: 'Test', key: 'test', class: 'primary', letter: 'T' };
    assertConflict(await server.request('POST', api('environments'), { body }), ['key', 'libelle']);
  });

  test('environments.key taken, on PATCH', async () => {
    const env = await create('environments', validBody('environments'));
    assertConflict(await server.request('PATCH', api('environments', env.id), { body: { key: 'dev' } }), ['key']);
  });

  test('aliases: the (dns, port) pair', async () => {
    const alias = await create('aliases', validBody('aliases'));
    const again = { id_mysql_server: liveServerId, dns: alias.dns, port: alias.port };
    assertConflict(await server.request('POST', api('aliases'), { body: again }), ['dns', 'port']);
    // The same name on another port is another alias.
    const otherPort = await server.request('POST', api('aliases'), { body: { ...again, port: alias.port + 1 } });
    assert.equal(otherPort.status, 201, otherPort.text);
  });

  test('aliases: DNS names compare case-insensitively', async () => {
    const alias = await create('aliases', validBody('aliases'));
    const body = { id_mysql_server: liveServerId, dns: String(alias.dns).toUpperCase(), port: alias.port };
    assertConflict(await server.request('POST', api('aliases'), { body }), ['dns', 'port']);
  });

  test('aliases: PATCH onto a taken (dns, port) pair', async () => {
    const alias = await create('aliases', validBody('aliases'));
    const other = await create('aliases', { ...validBody('aliases'), port: alias.port + 7 });
    assertConflict(await server.request('PATCH', api('aliases', other.id), { body: { dns: alias.dns, port: alias.port } }), ['dns', 'port']);
  });

  test('servers: the (ip, port) pair among live servers', async () => {
    const srv = await create('servers', validBody('servers'));
    assertConflict(await server.request('POST', api('servers'), { body: { ip: srv.ip, port: srv.port } }), ['ip', 'port']);
    const otherPort = await server.request('POST', api('servers'), { body: { ip: srv.ip, port: srv.port + 1 } });
    assert.equal(otherPort.status, 201, otherPort.text);
  });

  test('servers: the default port 3306 takes part in the pair', async () => {
    const ip = nextIp();
    await create('servers', { ip });
    assertConflict(await server.request('POST', api('servers'), { body: { ip, port: 3306 } }), ['ip', 'port']);
  });

  test('servers: PATCH onto a taken (ip, port) pair', async () => {
    const a = await create('servers', validBody('servers'));
    const b = await create('servers', validBody('servers'));
    assertConflict(await server.request('PATCH', api('servers', b.id), { body: { ip: a.ip } }), ['ip', 'port']);
  });

  test('servers: a soft-deleted server frees its (ip, port)', async () => {
    const srv = await create('servers', validBody('servers'));
    assert.equal((await server.request('DELETE', api('servers', srv.id))).status, 200);
    const again = await server.request('POST', api('servers'), { body: { ip: srv.ip, port: srv.port } });
    assert.equal(again.status, 201, again.text);
    // ... and the new live one holds it again.
    assertConflict(await server.request('POST', api('servers'), { body: { ip: srv.ip, port: srv.port } }), ['ip', 'port']);
  });
});

describe('a refused request changes nothing (section 6)', () => {
  test('refused POSTs of tags (400, 413, 415, 422, 409) add nothing', async () => {
    const taken = await create('tags', validBody('tags'));
    await assertUnchanged('tags', [taken.id], async () => {
      const name = unique('nothing-');
      assertInvalid(await server.request('POST', api('tags'), { body: { name, color: 'red' } }), ['color']);
      assertInvalid(await server.request('POST', api('tags'), { body: { name, colour: '#000000' } }), ['colour']);
      assertInvalid(await server.request('POST', api('tags'), { body: { name: `${name}\u0001` } }), ['name']);
      assertConflict(await server.request('POST', api('tags'), { body: { name: taken.name, color: '#000000' } }), ['name']);
      assertProblem(await server.request('POST', api('tags'), { raw: `{"name":"${name}",`, headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
      assertProblem(await server.request('POST', api('tags'), { raw: '', headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
      assertProblem(
        await server.request('POST', api('tags'), { raw: `{"name":"${name}","__proto__":{}}`, headers: JSON_HEADER }),
        400,
        'MALFORMED_JSON',
      );
      assertProblem(
        await server.request('POST', api('tags'), { raw: JSON.stringify({ name }), headers: { 'content-type': 'text/plain' } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      assertProblem(
        await server.request('POST', api('tags'), { raw: JSON.stringify({ name, pad: 'p'.repeat(ONE_MIB) }), headers: JSON_HEADER }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      assertProblem(await server.request('POST', api('tags', taken.id), { body: { name } }), 405, 'METHOD_NOT_ALLOWED');
    });
  });

  test('refused PUTs leave the entry as it was (not even the valid fields are applied)', async () => {
    const taken = await create('tags', validBody('tags'));
    const tag = await create('tags', { ...validBody('tags'), color: '#111111', background: '#222222' });
    await assertUnchanged('tags', [tag.id, taken.id], async () => {
      const body = { name: unique('changed-'), color: '#333333', background: '#444444' };
      assertInvalid(await server.request('PUT', api('tags', tag.id), { body: { ...body, color: 'red' } }), ['color']);
      assertInvalid(await server.request('PUT', api('tags', tag.id), { body: { ...body, colour: '#555555' } }), ['colour']);
      assertInvalid(await server.request('PUT', api('tags', tag.id), { body: { ...body, id: taken.id } }), ['id']);
      assertInvalid(await server.request('PUT', api('tags', tag.id), { body: { color: '#333333' } }), ['name']);
      assertConflict(await server.request('PUT', api('tags', tag.id), { body: { ...body, name: taken.name } }), ['name']);
      assertProblem(await server.request('PUT', api('tags', tag.id), { raw: '{"name":', headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
      assertProblem(
        await server.request('PUT', api('tags', tag.id), { raw: JSON.stringify(body), headers: { 'content-type': 'text/plain' } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      assertProblem(
        await server.request('PUT', api('tags', tag.id), { raw: JSON.stringify({ ...body, pad: 'p'.repeat(ONE_MIB) }), headers: JSON_HEADER }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
    });
  });

  test('refused PATCHes leave the entry as it was', async () => {
    const taken = await create('tags', validBody('tags'));
    const tag = await create('tags', { ...validBody('tags'), color: '#111111' });
    await assertUnchanged('tags', [tag.id, taken.id], async () => {
      assertInvalid(await server.request('PATCH', api('tags', tag.id), { body: { color: '#333333', background: 'blue' } }), ['background']);
      assertInvalid(await server.request('PATCH', api('tags', tag.id), { body: { color: '#333333', colour: '#333333' } }), ['colour']);
      assertInvalid(await server.request('PATCH', api('tags', tag.id), { body: { color: '#333333', id: tag.id + 1 } }), ['id']);
      assertConflict(await server.request('PATCH', api('tags', tag.id), { body: { color: '#333333', name: taken.name } }), ['name']);
      assertProblem(await server.request('PATCH', api('tags', tag.id), { raw: '{"color":"#333333"', headers: JSON_HEADER }), 400, 'MALFORMED_JSON');
      assertProblem(
        await server.request('PATCH', api('tags', tag.id), { raw: '{"color":"#333333"}', headers: { 'content-type': 'text/plain' } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
    });
  });

  test('PUT and PATCH on a missing id are 404 and create nothing', async () => {
    await assertUnchanged('tags', [], async () => {
      assertProblem(await server.request('PUT', api('tags', 2147483600), { body: validBody('tags') }), 404, 'NOT_FOUND');
      assertProblem(await server.request('PATCH', api('tags', 2147483600), { body: validBody('tags') }), 404, 'NOT_FOUND');
    });
    assertProblem(await server.request('GET', api('tags', 2147483600)), 404, 'NOT_FOUND');
  });

  test('refused DELETEs (404, 400) remove nothing', async () => {
    const tag = await create('tags', validBody('tags'));
    await assertUnchanged('tags', [tag.id], async () => {
      assertProblem(await server.request('DELETE', api('tags', 2147483600)), 404, 'NOT_FOUND');
      assertProblem(await server.request('DELETE', api('tags', 'abc')), 404, 'NOT_FOUND');
      // A DELETE of the collection is a bulk delete (section 12): without ids it is refused.
      assertProblem(await server.request('DELETE', api('tags')), 400, 'BAD_QUERY');
      assertProblem(await server.request('DELETE', `/xx/api/config/tags/${tag.id}`), 404, 'NOT_FOUND');
    });
  });

  test('refused POST, PUT and PATCH of servers (409 on ip/port, 422) change nothing', async () => {
    const a = await create('servers', validBody('servers'));
    const b = await create('servers', { ...validBody('servers'), hostname: 'b-host', ssl: true });
    await assertUnchanged('servers', [a.id, b.id], async () => {
      assertConflict(await server.request('POST', api('servers'), { body: { ip: a.ip, port: a.port, hostname: 'dup' } }), ['ip', 'port']);
      assertConflict(await server.request('PATCH', api('servers', b.id), { body: { ip: a.ip, port: a.port, hostname: 'changed' } }), ['ip', 'port']);
      assertConflict(await server.request('PUT', api('servers', b.id), { body: { ip: a.ip, port: a.port } }), ['ip', 'port']);
      assertInvalid(await server.request('PATCH', api('servers', b.id), { body: { hostname: 'changed', ssl: 2 } }), ['ssl']);
      assertInvalid(await server.request('PUT', api('servers', b.id), { body: { ip: 'bad ip', hostname: 'changed' } }), ['ip']);
    });
  });

  test('refused writes of aliases and storage areas (references) change nothing', async () => {
    const deadServer = await create('servers', validBody('servers'));
    assert.equal((await server.request('DELETE', api('servers', deadServer.id))).status, 200);
    const alias = await create('aliases', validBody('aliases'));
    await assertUnchanged('aliases', [alias.id], async () => {
      assertInvalid(await server.request('POST', api('aliases'), { body: { ...validBody('aliases'), id_mysql_server: deadServer.id } }), ['id_mysql_server']);
      assertInvalid(await server.request('PATCH', api('aliases', alias.id), { body: { port: 1234, id_mysql_server: deadServer.id } }), ['id_mysql_server']);
      assertConflict(await server.request('POST', api('aliases'), { body: { id_mysql_server: liveServerId, dns: alias.dns, port: alias.port } }), ['dns', 'port']);
    });
    const area = await create('storage-areas', validBody('storage-areas'));
    await assertUnchanged('storage-areas', [area.id], async () => {
      assertInvalid(await server.request('POST', api('storage-areas'), { body: { ...validBody('storage-areas'), ssh_key: 2147483000 } }), ['ssh_key']);
      assertInvalid(await server.request('PATCH', api('storage-areas', area.id), { body: { libelle: 'changed', ssh_key: 2147483000 } }), ['ssh_key']);
    });
  });

  test('refused POSTs of environments and clients add nothing', async () => {
    await assertUnchanged('environments', [1, 6], async () => {
      assertConflict(await server.request('POST', api('environments'), { body: { ...validBody('environments'), key: 'prod' } }), ['key']);
      assertInvalid(await server.request('POST', api('environments'), { body: { ...validBody('environments'), class: 'purple' } }), ['class']);
    });
    await assertUnchanged('clients', [99], async () => {
      assertConflict(await server.request('POST', api('clients'), { body: { libelle: 'system' } }), ['libelle']);
      assertInvalid(await server.request('POST', api('clients'), { body: { libelle: unique('c-'), is_monitored: 'no' } }), ['is_monitored']);
    });
  });

  test('a guarded DELETE (environment 1, client 99) is 409 DELETE_GUARDED and removes nothing', async () => {
    await assertUnchanged('environments', [1, 2, 3, 4, 5, 6], async () => {
      assertProblem(await server.request('DELETE', api('environments', 1)), 409, 'DELETE_GUARDED');
      assertProblem(await server.request('DELETE', api('environments', 6)), 409, 'DELETE_GUARDED');
    });
    await assertUnchanged('clients', [99], async () => {
      assertProblem(await server.request('DELETE', api('clients', 99)), 409, 'DELETE_GUARDED');
    });
  });

  test('DELETE of an SSH key still used by a storage area is 409 REFERENCED and removes nothing', async () => {
    const key = await newSshKey();
    const area = await create('storage-areas', { ...validBody('storage-areas'), ssh_key: key.id });
    await assertUnchanged('ssh-keys', [key.id], async () => {
      await assertUnchanged('storage-areas', [area.id], async () => {
        const body = assertProblem(await server.request('DELETE', api('ssh-keys', key.id)), 409, 'REFERENCED');
        assert.ok(body.detail.includes(String(area.id)), `detail names the storage area: ${body.detail}`);
      });
    });
  });
});
