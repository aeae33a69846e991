// Settings the service refuses at start (contract sections 9 and 14): each start runs
// `dist/main.js` to its exit, on SQLite in a folder of its own, and must end non-zero with a
// message on stderr that names the setting and never repeats a token. Moved here from
// security.test.ts and tokens-access.test.ts, unchanged: they start a process of their own, and
// the service refuses these settings before it opens any database.
// @backend-independent (runs once, not once per backend): every start here is on SQLite
// whatever TEST_DATABASE says (runOnceToExit), and is refused before the database is opened.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { runOnceToExit } from '../support/server.js';

const WRITE = `w-${randomBytes(16).toString('hex')}`;
const READ = `r-${randomBytes(16).toString('hex')}`;

describe('token configuration', () => {
  for (const [label, env] of [
    ['a short token', { API_TOKENS: 'write:short' }],
    ['an unknown scope', { API_TOKENS: `owner:${WRITE}` }],
    ['a name that is not one', { API_TOKENS: `bad name=write:${WRITE}` }],
    ['a name given twice', { API_TOKENS: `ci=write:${WRITE},ci=read:${READ}` }],
    ['a token given twice', { API_TOKENS: `write:${WRITE},read:${WRITE}` }],
    ['a token with a space', { API_TOKENS: `write:${WRITE} x` }],
    ['a missing token file', { API_TOKENS_FILE: '/nonexistent/tokens' }],
  ] as const) {
    test(`refuses to start with ${label}, naming the setting but not the token`, () => {
      const run = runOnceToExit(env);
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, /API_TOKENS/);
      assert.ok(!run.stderr.includes(WRITE), 'the message repeats the token');
      assert.doesNotMatch(run.stdout, /Server listening/);
    });
  }

  test('no tokens and a non-loopback HOST: refuses to start with a clear message', () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.1']) {
      const run = runOnceToExit({ HOST: host });
      assert.notEqual(run.status, 0, host);
      assert.match(run.stderr, /not a loopback address and no API token is configured/);
      assert.doesNotMatch(run.stdout, /Server listening/);
    }
  });
});

describe('the first token', () => {
  test('a non-loopback HOST with no token at all is refused, naming the ways to make one', () => {
    const run = runOnceToExit({ HOST: '0.0.0.0' });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /no API token is configured.*token:create/);
  });
});

describe('TRUST_PROXY settings', () => {
  for (const value of ['true', '10.0.0.0/33', 'proxy.example']) {
    test(`TRUST_PROXY=${value} refuses to start`, () => {
      const run = runOnceToExit({ TRUST_PROXY: value });
      assert.equal(run.status, 1);
      assert.match(run.stderr, /TRUST_PROXY/);
    });
  }
});
