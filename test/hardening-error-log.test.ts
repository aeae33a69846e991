// Hardening (outside probe): the log line of a 500 names its cause but never quotes text a
// client chose. Drivers quote the values of a failed statement in their messages and keep the
// statement's text and values in fields of their own; the logger's `err` serializer writes the
// class, the code, the frames and the message with every quoted stretch removed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { ApiError } from '../src/errors/api-error.js';
import { serializeError } from '../src/logging/error-serializer.js';
import { message } from '../src/messages/messages.js';
import { BACKEND, POSTGRES_ADMIN_URL } from './support/test-database.js';

const MARKER = '1 OR 1=1 probe-marker';

function assertNoMarker(error: unknown, expected: RegExp): void {
  const logged = serializeError(error);
  const text = JSON.stringify(logged);
  assert.ok(!text.includes('probe-marker'), `client text in the log line: ${text}`);
  assert.match(logged.message, expected, 'the message still names the cause');
}

test('driver errors of each backend, as they quote a value', () => {
  // PostgreSQL (pg's DatabaseError): the value in the message, and in `where`.
  const postgres = Object.assign(new Error(`invalid input syntax for type integer: "${MARKER}"`), {
    code: '22P02',
    severity: 'ERROR',
    where: `unnamed portal parameter $1 = '${MARKER}'`,
    routine: 'pg_strtoint32_safe',
  });
  assertNoMarker(postgres, /invalid input syntax for type integer/);
  assert.equal(serializeError(postgres).code, '22P02');
  // MariaDB (mysql2): the value in the message, the statement in `sql`.
  const mariadb = Object.assign(new Error(`Incorrect integer value: '${MARKER}' for column \`config\`.\`servers\`.\`id\` at row 1`), {
    code: 'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
    errno: 1366,
    sqlState: '22007',
    sqlMessage: `Incorrect integer value: '${MARKER}'`,
    sql: `select * from servers where id < '${MARKER}'`,
  });
  assertNoMarker(mariadb, /Incorrect integer value/);
  // A JSON parse error quotes its input.
  let parseError: unknown;
  try {
    JSON.parse(`{"a": ${MARKER}}`);
  } catch (error) {
    parseError = error;
  }
  assertNoMarker(parseError, /JSON/);
});

test('an unclosed quote hides everything after it; control characters are blanked', () => {
  assertNoMarker(new Error(`bad value: "${MARKER}`), /bad value/);
  assertNoMarker(new Error(`column "name" of 'tags': "x" then '${MARKER}`), /^column "…" of '…': "…" then '…$/);
  const logged = serializeError(new Error('line one\nline two\u0000'));
  assert.ok(!/[\u0000-\u001f]/.test(logged.message), JSON.stringify(logged.message));
});

test('the cause of an ApiError is named, scrubbed too', () => {
  const cause = Object.assign(new Error(`value too long for type character varying(32): "${MARKER}"`), { code: '22001' });
  const error = new ApiError('UNAVAILABLE', message('database.unavailable'), [], {}, {}, cause);
  assertNoMarker(error, /^UNAVAILABLE: database\.unavailable: value too long/);
  assert.ok(serializeError(error).stack.includes(' at '), 'the frames are kept');
});

test('a real PostgreSQL error for a forged value', { skip: BACKEND !== 'postgres' && 'PostgreSQL only' }, async () => {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    const failure = await client.query('select $1::integer', [MARKER]).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(failure instanceof Error);
    assert.ok(failure.message.includes(MARKER), 'PostgreSQL quotes the value');
    assertNoMarker(failure, /invalid input syntax/);
    const nul = await client.query('select $1::text', ['a\u0000b']).then(
      () => undefined,
      (error: unknown) => error,
    );
    assertNoMarker(nul, /invalid byte sequence/);
  } finally {
    await client.end();
  }
});
