// GET /{lang}/api/docs: the interactive documentation page and the files it loads, served
// by the service from swagger-ui-dist (no CDN), with the same 404/405 rules as every path.
// @backend-independent (runs once, not once per backend): the page and the files it loads come from swagger-ui-dist and the registry, never from the database.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { OWN_CONNECTION, serverPerSuite } from './support/server.js';

const server = serverPerSuite();

describe('the documentation page', () => {
  for (const lang of ['fr', 'en', 'de']) {
    test(`/${lang}/api/docs is an HTML page that loads the document and files of /${lang}/`, async () => {
      const reply = await server.request('GET', `/${lang}/api/docs`);
      assert.equal(reply.status, 200);
      assert.match(reply.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
      assert.ok(reply.text.includes(`data-openapi-url="/${lang}/api/openApi"`), reply.text);
      for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'docs-page.js']) {
        assert.ok(reply.text.includes(`/${lang}/api/docs/${asset}`), asset);
      }
      assert.match(reply.text, lang === 'fr' ? /<html lang="fr">/ : /<html lang="en">/);
      assert.doesNotMatch(reply.text, /https?:\/\//, 'nothing is loaded from elsewhere');
    });
  }

  test('a Content-Security-Policy keeps the page to its own origin', async () => {
    const csp = (await server.request('GET', '/en/api/docs')).headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline script');
    assert.match(csp, /connect-src 'self'/);
  });

  test('Swagger UI is served from node_modules, byte for byte', async () => {
    const require = createRequire(import.meta.url);
    for (const [asset, type] of [
      ['swagger-ui-bundle.js', /^text\/javascript/],
      ['swagger-ui.css', /^text\/css/],
      ['favicon-32x32.png', /^image\/png/],
    ] as const) {
      const response = await fetch(`${server.url}/en/api/docs/${asset}`, { headers: OWN_CONNECTION });
      const bytes = Buffer.from(await response.arrayBuffer());
      assert.equal(response.status, 200, asset);
      assert.match(response.headers.get('content-type') ?? '', type, asset);
      assert.ok(bytes.equals(readFileSync(require.resolve(`swagger-ui-dist/${asset}`))), `${asset} differs from swagger-ui-dist`);
      server.checkResponse('GET', `/en/api/docs/${asset}`, { status: response.status, headers: response.headers, text: '' });
    }
  });

  test('the page script turns "Try it out" on and points Swagger UI at the page’s document', async () => {
    const reply = await server.request('GET', '/fr/api/docs/docs-page.js');
    assert.equal(reply.status, 200);
    assert.match(reply.text, /tryItOutEnabled: true/);
    assert.match(reply.text, /data-openapi-url/);
    assert.match(reply.text, /validatorUrl: 'none'/);
    // Fields in sight without a click: schemas first, opened down to their fields' details.
    assert.match(reply.text, /defaultModelRendering: 'model'/);
    assert.match(reply.text, /layoutActions\.show\(\['components', 'schemas'\], true\)/);
  });

  test('an unknown file, language or method is refused like on every other path', async () => {
    for (const path of ['/en/api/docs/index.html', '/en/api/docs/..%2Fpackage.json', '/en/api/docs/swagger-ui.js.map']) {
      const reply = await server.request('GET', path);
      assert.equal(reply.status, 404, path);
      assert.equal(reply.body.code, 'NOT_FOUND');
    }
    assert.equal((await server.request('GET', '/xx/api/docs')).status, 404);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const reply = await server.request(method, '/en/api/docs', method === 'DELETE' ? {} : { body: {} });
      assert.equal(reply.status, 405, method);
      assert.equal(reply.headers.get('allow'), 'GET, HEAD, OPTIONS');
    }
    const options = await server.request('OPTIONS', '/en/api/docs/swagger-ui.css');
    assert.equal(options.status, 204);
    assert.equal(options.headers.get('allow'), 'GET, HEAD, OPTIONS');
    const head = await server.request('HEAD', '/en/api/docs');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
  });
});
