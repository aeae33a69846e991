// Nothing acknowledged is lost: writers POST entries concurrently, the service is killed
// with SIGKILL in the middle of the stream, and after a restart on the same data every
// entry that was answered 2xx is there, whole, and nothing else is there but whole entries
// that some POST sent (a write cut short by the kill may be in or out, never half in).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allEntries } from '../support/entries.js';
import { killUnderWriters } from '../support/kill-under-writers.js';
import { startServer, type TestServer } from '../support/server.js';

const KILL_PLAN = { writers: 12, killAfterAcknowledged: 150, killAfterMs: 4000 };

interface SentServer {
  ip: string;
  port: number;
  hostname: string;
  ssl: boolean;
  ssh: boolean;
  is_proxy: boolean;
  is_vip: boolean;
  is_monitored: boolean;
}

function entryFor(writer: number, n: number): SentServer {
  return {
    ip: `10.${writer}.${n >> 8}.${n & 255}`,
    port: 3306 + (n % 1000),
    // Long rows span more of a page, so a torn write would show.
    hostname: `crash-${writer}-${n}-`.padEnd(190, String.fromCharCode(97 + ((writer + n) % 26))),
    ssl: n % 2 === 0,
    ssh: n % 3 === 0,
    is_proxy: n % 5 === 0,
    is_vip: n % 7 === 0,
    is_monitored: n % 11 !== 0,
  };
}

test('SIGKILL during concurrent writes loses no acknowledged entry and leaves no partial one', async (t) => {
  // SIGKILL needs a process of its own; the restart that reads what it left need not.
  const first = await startServer({ process: true });
  let second: TestServer | undefined;
  try {
    const sent = new Map<string, SentServer>();
    const acknowledged = new Map<string, number>();
    const { failedInFlight } = await killUnderWriters(first, KILL_PLAN, async (w, n) => {
      const body = entryFor(w, n);
      sent.set(body.hostname, body);
      const reply = await first.request('POST', '/en/api/config/servers', { body });
      if (reply.status < 200 || reply.status >= 300) assert.fail(`POST answered ${reply.status} before the kill: ${reply.text}`);
      acknowledged.set(body.hostname, reply.body.id);
    });

    second = await startServer({ dataDir: first.dataDir, database: first.database });
    const stored = (await allEntries(second, 'servers')).filter((item) => String(item.hostname).startsWith('crash-'));
    const byHostname = new Map(stored.map((item) => [String(item.hostname), item]));

    for (const [hostname, id] of acknowledged) {
      const item = byHostname.get(hostname);
      assert.ok(item, `acknowledged entry ${id} (${hostname.slice(0, 20)}…) is lost`);
      assert.equal(item.id, id);
    }
    for (const item of stored) {
      const body = sent.get(String(item.hostname));
      assert.ok(body, `stored entry ${String(item.id)} was never sent`);
      for (const [field, value] of Object.entries(body)) assert.deepEqual(item[field], value, `entry ${String(item.id)}: ${field}`);
    }
    assert.ok(stored.length <= acknowledged.size + failedInFlight, 'at most the in-flight writes were stored unanswered');
    t.diagnostic(`acknowledged ${acknowledged.size}, cut in flight ${failedInFlight}, stored ${stored.length}`);
  } finally {
    await second?.stop();
    await first.cleanup();
  }
});
