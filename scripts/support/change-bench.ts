// The change feed's figures (issue 14), for `npm run bench` and `npm run bench:changes`:
// - how long a change takes to reach a stream: on one SQLite instance, and from instance B to a
//   stream on instance A sharing one PostgreSQL or one MariaDB database (writes one after
//   another, each timed from its acknowledgement to its event; p50/p99);
// - 1,000 streams open on one instance: every write reaches every stream, how fast, and the
//   service's resident memory before and after they opened.
import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import mysql from 'mysql2/promise';
import { residentMegabytes, startService, type ServiceProcess } from './service-process.js';

const WRITES = Number(process.env.BENCH_CHANGE_WRITES ?? 200);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const MARIADB_ADMIN_URL = process.env.TEST_MARIADB_URL || 'mysql://root@127.0.0.1:3306/test';

/** An open change stream: the ids of the events it received, and when each arrived. */
interface Stream {
  readonly arrived: Map<number, number>;
  close(): void;
}

function openStream(url: string): Promise<Stream> {
  return new Promise((done, fail) => {
    const arrived = new Map<number, number>();
    const req = request(`${url}/en/api/changes/stream`, (response: IncomingMessage) => {
      if (response.statusCode !== 200) {
        fail(new Error(`stream answered ${response.statusCode}`));
        return;
      }
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const id = /^id: (\d+)$/m.exec(text.slice(0, end));
          if (id !== null) arrived.set(Number(id[1]), performance.now());
          text = text.slice(end + 2);
        }
      });
      done({ arrived, close: () => req.destroy() });
    });
    req.on('error', () => undefined);
    req.end();
  });
}

/** Creates a tag: the id of its change record, and when the create was acknowledged. */
async function write(url: string, index: number): Promise<{ id: number; acknowledged: number }> {
  const response = await fetch(`${url}/en/api/config/tags`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench-change-${process.pid}-${index}-${Math.random().toString(36).slice(2, 8)}` }),
  });
  const acknowledged = performance.now();
  if (response.status !== 201) throw new Error(`write answered ${response.status}`);
  // The change id is not in the answer: the record is the latest of this tag.
  const { id } = (await response.json()) as { id: number };
  const changes = (await (await fetch(`${url}/en/api/changes?resource=tags&entry_id=${id}`)).json()) as { items: { id: number }[] };
  return { id: changes.items[0]!.id, acknowledged };
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

async function waitFor(holds: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!holds()) {
    if (performance.now() > deadline) return false;
    await new Promise((next) => setTimeout(next, 2));
  }
  return true;
}

/** Writes through `writer` one after another, each timed from its acknowledgement to its
 * event on a stream of `reader`. */
async function latency(label: string, writer: string, reader: string): Promise<string> {
  const stream = await openStream(reader);
  const delays: number[] = [];
  let missing = 0;
  try {
    for (let index = 0; index < WRITES; index++) {
      const { id, acknowledged } = await write(writer, index);
      if (!(await waitFor(() => stream.arrived.has(id), 5000))) missing += 1;
      else delays.push(Math.max(0, stream.arrived.get(id)! - acknowledged));
    }
  } finally {
    stream.close();
  }
  return `${label}: ${WRITES} writes, change to stream p50 ${percentile(delays, 0.5).toFixed(1)} ms, p99 ${percentile(delays, 0.99).toFixed(1)} ms, max ${Math.max(...delays).toFixed(1)} ms${missing > 0 ? `, ${missing} NOT DELIVERED within 5 s` : ''}`;
}

async function manyStreams(service: ServiceProcess): Promise<string> {
  const before = residentMegabytes(service.pid);
  const streams: Stream[] = [];
  for (let index = 0; index < STREAMS; index++) streams.push(await openStream(service.url));
  const opened = residentMegabytes(service.pid);
  const delays: number[] = [];
  let incomplete = 0;
  const writes = 20;
  try {
    for (let index = 0; index < writes; index++) {
      const { id, acknowledged } = await write(service.url, index);
      if (!(await waitFor(() => streams.every((stream) => stream.arrived.has(id)), 10_000))) incomplete += 1;
      for (const stream of streams) if (stream.arrived.has(id)) delays.push(Math.max(0, stream.arrived.get(id)! - acknowledged));
    }
  } finally {
    for (const stream of streams) stream.close();
  }
  return (
    `${STREAMS} streams on one SQLite instance: ${writes} writes, ${delays.length} of ${writes * STREAMS} deliveries` +
    `${incomplete > 0 ? ` (${incomplete} writes NOT delivered to every stream)` : ' (every write to every stream)'}, ` +
    `p50 ${percentile(delays, 0.5).toFixed(1)} ms, p99 ${percentile(delays, 0.99).toFixed(1)} ms; ` +
    `resident memory ${before.toFixed(0)} MB before, ${opened.toFixed(0)} MB with the streams open`
  );
}

/** A database of its own on a server, dropped afterwards. */
async function serverDatabase(kind: 'postgres' | 'mariadb'): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `bench_changes_${process.pid}`;
  if (kind === 'postgres') {
    const admin = new PgClient({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      drop: async () => {
        const again = new PgClient({ connectionString: POSTGRES_ADMIN_URL });
        await again.connect();
        await again.query(`drop database if exists ${name} with (force)`);
        await again.end();
      },
    };
  }
  const admin = await mysql.createConnection(MARIADB_ADMIN_URL);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(MARIADB_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = await mysql.createConnection(MARIADB_ADMIN_URL);
      await again.query(`drop database if exists ${name}`);
      await again.end();
    },
  };
}

export async function changeFeedFigures(): Promise<string[]> {
  const notes: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'config-api-bench-changes-'));
  try {
    const env = { DATABASE_URL: `sqlite:${join(dataDir, 'config.db')}`, SECRET_KEY_FILE: join(dataDir, 'secret.key'), TOKEN_KEY_FILE: join(dataDir, 'token.key') };
    // Its streams all come from this one address, anonymous: the limits per address and token
    // are lifted, and streams may take half of MAX_CONNECTIONS (src/http/change-stream-limits.ts).
    const service = await startService({ ...env, MAX_CONNECTIONS: String(2 * STREAMS + 100), CHANGE_STREAMS_PER_ADDRESS: '0', CHANGE_STREAMS_PER_TOKEN: '0' });
    try {
      notes.push(await latency('SQLite, one instance', service.url, service.url));
      notes.push(await manyStreams(service));
    } finally {
      await service.stop();
    }
    for (const kind of ['postgres', 'mariadb'] as const) {
      const database = await serverDatabase(kind);
      try {
        const shared = { DATABASE_URL: database.url, SECRET_KEY_FILE: join(dataDir, 'secret.key'), TOKEN_KEY_FILE: join(dataDir, 'token.key') };
        const a = await startService(shared);
        const b = await startService(shared);
        try {
          notes.push(await latency(`${kind === 'postgres' ? 'PostgreSQL' : 'MariaDB'}, written through instance B, streamed from instance A`, b.url, a.url));
        } finally {
          await b.stop();
          await a.stop();
        }
      } finally {
        await database.drop();
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return notes;
}

// Run alone: `npm run bench:changes`.
if (import.meta.url === `file://${process.argv[1]}`) {
  changeFeedFigures().then(
    (notes) => process.stdout.write(`${notes.map((note) => `- ${note}`).join('\n')}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
