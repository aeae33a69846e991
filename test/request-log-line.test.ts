// The request-completed line is formed by the service, not by pino (request-log-controller.ts):
// it must be pino's line for the same fields, byte for byte, with the service's logger as it is
// configured. Each line the service wrote is compared with the line pino writes, through the
// same logger, for the fields read back from it (the time set to the same value).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build } from './support/app.js';

const TOKEN = 'log-line-admin-token-0123456789';

async function linesAt(t: Parameters<typeof build>[0], level: string): Promise<{ written: string[]; pinoLine: (fields: Record<string, unknown>) => string }> {
  const written: string[] = [];
  const { app } = await build(t, { env: { LOG_LEVEL: level, API_TOKENS: `ops.team@site-1=admin:${TOKEN}` }, logDestination: { write: (line) => void written.push(line) } });
  const requests = [
    { method: 'GET' as const, url: '/en/api/config/tags', headers: { 'x-request-id': 'log-line-1', authorization: `Bearer ${TOKEN}` } },
    { method: 'GET' as const, url: '/en/api/config/tags/999', headers: { authorization: `Bearer ${TOKEN}` } },
    { method: 'POST' as const, url: '/fr/api/config/tags', headers: { authorization: `Bearer ${TOKEN}` }, payload: { name: 'ligne', color: '#ffffff', background: '#000000' } },
    // Anonymous, where tokens are required: 401.
    { method: 'GET' as const, url: '/en/api/config/servers' },
  ];
  for (const request of requests) await app.inject(request);
  const pinoLine = (fields: Record<string, unknown>): string => {
    const before = written.length;
    const { time: _time, level: _level, pid: _pid, hostname: _hostname, msg, ...rest } = fields;
    app.log.info(rest, msg as string);
    return written.splice(before, 1)[0]!;
  };
  return { written: written.filter((line) => line.includes('"msg":"request completed"')), pinoLine };
}

test('the completion line is the line pino writes for its fields, at info and at debug', async (t) => {
  for (const level of ['info', 'debug']) {
    const { written, pinoLine } = await linesAt(t, level);
    assert.equal(written.length, 4, `four completion lines at ${level}`);
    for (const line of written) {
      const fields = JSON.parse(line) as Record<string, unknown>;
      const expected = pinoLine(fields).replace(/"time":\d+/, `"time":${fields.time}`);
      assert.equal(line, expected);
    }
    const [listed, missing, created, refused] = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(listed!.reqId, 'log-line-1');
    assert.equal(listed!.status, 200);
    assert.equal(listed!.actor, 'ops.team@site-1');
    assert.equal(missing!.status, 404);
    assert.equal(created!.status, 201);
    assert.equal(refused!.status, 401);
    assert.equal(refused!.actor, 'anonymous');
  }
});

test('at warn no completion line is written', async (t) => {
  const { written } = await linesAt(t, 'warn');
  assert.deepEqual(written, []);
});
