// `npm run bench:webhooks` (issue #32): the figures of the webhook deliveries, receivers on
// loopback in this process answering 204 at once (BENCH_WEBHOOK_CHANGES: how many changes
// scenarios 2 and 4 write, 10,000). Scenarios 1-3 run on each database of
// BENCH_WEBHOOK_DATABASES (sqlite, postgres, mariadb; default sqlite), each service on a
// database of its own (support/webhook-bench-database.ts); 4 on SQLite, 5 on PostgreSQL:
// 1. POST of a server with three subscribed webhooks against the same POST with none: two
//    services in alternating wrk rounds (bench-kit), the goal 0.9 of the throughput. On
//    SQLite the same rounds load the ratio's floor: bare Fastify inserting the same row into
//    the service's schema, with and without three signed POSTs to the same receivers after
//    each commit (support/webhook-floor-server.ts); its ratio is the most this stack reaches.
// 2. Deliveries a second sustained to one fast receiver: 10,000 changes written in bulk
//    requests, from the first to the last delivery; beside it the floor, the same number of
//    signed POSTs of the same size from a bare sender in a process of its own
//    (support/webhook-floor-sender.ts), new connections as the service makes them, and
//    kept-alive ones.
// 3. Commit to receiver: from a change record's `at` (taken just before its commit) to the
//    delivery's arrival, for single POSTs one at a time, then from 8 writers at once.
// 4. 10,000 deliveries pending for a dead receiver (connections refused), retried every 5 s:
//    GET p99 in alternating rounds with the same data and nothing pending (and BENCH_BASELINE's
//    build, a built checkout, with the same 10,000: before and after in one run), each
//    service's resident memory, and none lost (support/webhook-dead-receiver-bench.ts;
//    BENCH_WEBHOOK_SCENARIOS=4 runs this one alone).
// 5. Two instances on one PostgreSQL database, one webhook: writers on both at once, commit
//    to receiver p50/p99 (goal under 1 s) and duplicates counted by webhook-id at the receiver.
// `uptime` before and after: the machine's load is part of every figure.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { alternate, figures, goalsTable, machine, median, ROUNDS, SECONDS, startBenchService, startHelperServer, table, uptime, type HelperServer, type Target } from './support/bench-kit.js';
import { cpuMilliseconds, type ServiceProcess } from './support/service-process.js';
import { AUTH, api, TOKEN, waitFor } from './support/webhook-bench-http.js';
import { deadReceiver } from './support/webhook-dead-receiver-bench.js';
import { webhookBenchBackends, webhookBenchDatabase, type WebhookBenchBackend } from './support/webhook-bench-database.js';
import { ensureWrk, runWrk } from './support/wrk.js';

const CHANGES = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 10_000);
const BULK = 1000;
const CONCURRENCY = 32;
/** The webhook-id prefix of the floor's POSTs in scenario 1 (support/webhook-floor-server.ts). */
const FLOOR_ID_PREFIX = 'floor_';

interface Receiver {
  readonly url: string;
  /** Arrivals: when, and the delay from the change record's `at`. */
  readonly arrivals: { at: number; delayMs: number; bytes: number }[];
  /** Arrivals by webhook-id: more than one is a duplicate. */
  readonly ids: Map<string, number>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals: Receiver['arrivals'] = [];
  const ids = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const now = Date.now();
      const id = String(request.headers['webhook-id']);
      // The floor's POSTs (scenario 1) are counted apart: they are no delivery of the service.
      if (id.startsWith(FLOOR_ID_PREFIX)) return void response.writeHead(204).end();
      ids.set(id, (ids.get(id) ?? 0) + 1);
      const at = /"data":\{"id":\d+,"at":"([^"]+)"/.exec(body);
      arrivals.push({ at: now, delayMs: at === null ? Number.NaN : now - Date.parse(at[1]!), bytes: Buffer.byteLength(body) });
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    ids,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function webhook(service: ServiceProcess, name: string, url: string, resources: string[]): Promise<number> {
  return (await api(service, 'POST', '/en/api/webhooks', { name, url, resources })).id;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The bare sender's time for `count` signed POSTs of `bytes` to `url`, in ms. */
function floorSend(url: string, count: number, bytes: number, mode: 'new' | 'keep-alive'): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support', 'webhook-floor-sender.ts'), url, String(count), String(CONCURRENCY), String(bytes), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((done, fail) => {
    child.on('exit', (code) => {
      const sent = /sent \d+ in (\d+)/.exec(output);
      if (code !== 0 || sent === null) fail(new Error(`the floor sender exited with ${code}: ${output}`));
      else done(Number(sent[1]));
    });
  });
}

async function startOne(root: string, name: string, databaseUrl: string): Promise<ServiceProcess> {
  return startBenchService(root, {
    DATABASE_URL: databaseUrl,
    API_TOKENS: `bench=admin:${TOKEN}`,
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  }, { log: `${name}.log` });
}

const BASELINE = process.env.BENCH_BASELINE;
const PROFILE = process.env.BENCH_WEBHOOK_PROFILE;
/** BENCH_WEBHOOK_SCENARIOS=4: only the dead receiver's (1-3 run together). */
const SCENARIOS = (process.env.BENCH_WEBHOOK_SCENARIOS ?? '1,2,3,4,5').split(',').map(Number);
const DATABASES = webhookBenchBackends(process.env.BENCH_WEBHOOK_DATABASES ?? 'sqlite');

const rate = (count: number, ms: number): string => `${Math.round(count / (ms / 1000))}/s`;

/** Scenarios 1 to 3 (those of SCENARIOS) on `backend`. */
async function deliveries(root: string, backend: WebhookBenchBackend): Promise<void> {
  const receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver(), startReceiver()]);
  const databases = [await webhookBenchDatabase(backend, root, 'three-webhooks'), await webhookBenchDatabase(backend, root, 'no-webhook')];
  const hooked = await startOne(root, 'three-webhooks', databases[0]!.url);
  const bare = await startOne(root, 'no-webhook', databases[1]!.url);
  try {
    if (SCENARIOS.includes(1)) await writeWithWebhooks(root, backend, hooked, bare, receivers);
    await hooked.stop();
    if (SCENARIOS.includes(2)) await sustained(backend, bare, receivers[3]!);
    if (SCENARIOS.includes(3)) await commitToReceiver(backend, bare, receivers[3]!);
    await bare.stop();
  } finally {
    await bare.stop().catch(() => undefined);
    await hooked.stop().catch(() => undefined);
    for (const receiver of receivers) await receiver.close();
    for (const database of databases) await database.drop();
  }
}

/** The floor servers of scenario 1 on SQLite: each on a copy of a file whose schema a service
 * made (and closed), one sending three signed POSTs to `receivers` after each commit. */
async function floorServers(root: string, receivers: readonly Receiver[]): Promise<HelperServer[]> {
  const file = join(root, 'floor-schema.db');
  const maker = await startOne(root, 'floor-schema', `sqlite:${file}`);
  await maker.stop();
  const script = join(import.meta.dirname, 'support', 'webhook-floor-server.ts');
  const servers: HelperServer[] = [];
  for (const [name, urls] of [['floor-sending', receivers.map((r) => r.url).join(',')], ['floor-bare', '']] as const) {
    copyFileSync(file, join(root, `${name}.db`));
    servers.push(await startHelperServer(script, [join(root, `${name}.db`), ...(urls === '' ? [] : [urls])]));
  }
  return servers;
}

/** 1. The cost of a write with three webhooks. */
async function writeWithWebhooks(root: string, backend: WebhookBenchBackend, hooked: ServiceProcess, bare: ServiceProcess, receivers: readonly Receiver[]): Promise<void> {
  const floors = backend === 'sqlite' ? await floorServers(root, receivers.slice(0, 3)) : [];
  try {
    // 1. The cost of a write with three webhooks.
    for (let i = 0; i < 3; i++) await webhook(hooked, `receiver-${i}`, receivers[i]!.url, ['servers']);
    const post = { method: 'POST' as const, path: '/en/api/config/servers', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{"ip":"10.{{math.floor(n / 65536) % 256}}.{{math.floor(n / 256) % 256}}.{{n % 256}}","port":{{3306 + math.floor(n / 16777216) % 1000}}}' };
    const targets: Target[] = [
      { name: 'service, 3 webhooks', url: hooked.url, pid: hooked.pid, request: post },
      { name: 'service, no webhook', url: bare.url, pid: bare.pid, request: post },
    ];
    if (floors.length === 2) {
      targets.push({ name: 'floor, 3 signed POSTs', url: floors[0]!.url, pid: floors[0]!.pid, request: post });
      targets.push({ name: 'floor, no POST', url: floors[1]!.url, pid: floors[1]!.pid, request: post });
    }
    const measured = await alternate(targets);
    const rows = figures(backend, 'POST /servers', measured);
    const goal = { scenario: 'POST /servers', against: 'service, no webhook', atLeast: 0.9, source: '#32', ...(floors.length === 2 ? { floor: 'floor, 3 signed POSTs', floorAgainst: 'floor, no POST' } : {}) };
    console.log(`## 1. A write with three webhooks (${backend})\n\n${table(rows)}\n\n${goalsTable([goal], rows)}\n`);
    const created = measured[0]!.rounds.reduce((sum, round) => sum + round.answered, 0);
    await waitFor('the three receivers got every change', () => receivers.slice(0, 3).every((r) => r.arrivals.length >= created));
    console.log(`every change of the three-webhook service delivered to each receiver (${receivers[0]!.arrivals.length} each).\n`);
  } finally {
    for (const floor of floors) await floor.close();
  }
}

/** 2. Deliveries a second to one fast receiver, and the floor. */
async function sustained(backend: WebhookBenchBackend, bare: ServiceProcess, fast: Receiver): Promise<void> {
  {
    await webhook(bare, 'fast', fast.url, ['tags']);
    const started = Date.now();
    const cpuBefore = cpuMilliseconds(bare.pid);
    for (let start = 0; start < CHANGES; start += BULK) {
      await api(bare, 'POST', '/en/api/config/tags', Array.from({ length: BULK }, (_, i) => ({ name: `t-${start + i}` })));
    }
    const written = Date.now();
    await waitFor(`${CHANGES} deliveries`, () => fast.arrivals.length >= CHANGES);
    const cpuPerChange = ((cpuMilliseconds(bare.pid) - cpuBefore) * 1000) / CHANGES;
    const first = fast.arrivals[0]!.at;
    const last = fast.arrivals[CHANGES - 1]!.at;
    const bytes = Math.round(median(fast.arrivals.map((a) => a.bytes)));
    const floorNew = await floorSend(fast.url, CHANGES, bytes - 80, 'new');
    const floorKept = await floorSend(fast.url, CHANGES, bytes - 80, 'keep-alive');
    console.log(`## 2. Deliveries a second to one fast receiver (${backend})\n`);
    console.log('| what | count | ms | rate | service ÷ floor |\n|---|---:|---:|---:|---:|');
    console.log(`| service: first to last delivery | ${CHANGES} | ${last - first} | ${rate(CHANGES, last - first)} | |`);
    console.log(`| service: first request to last delivery (writes ${written - started} ms) | ${CHANGES} | ${last - started} | ${rate(CHANGES, last - started)} | |`);
    console.log(`| floor: bare sender, new connection each (as the service) | ${CHANGES} | ${floorNew} | ${rate(CHANGES, floorNew)} | ${(floorNew / (last - first)).toFixed(2)} |`);
    console.log(`| floor: bare sender, kept-alive connections | ${CHANGES} | ${floorKept} | ${rate(CHANGES, floorKept)} | ${(floorKept / (last - first)).toFixed(2)} |`);
    console.log(`\nbodies of ${bytes} bytes; the service's CPU per change, written and delivered: ${Math.round(cpuPerChange)} µs; goal 1,000/s sustained.\n`);
  }
}

/** 3. Commit to receiver, on one instance. */
async function commitToReceiver(backend: WebhookBenchBackend, bare: ServiceProcess, fast: Receiver): Promise<void> {
  if (!SCENARIOS.includes(2)) await webhook(bare, 'fast', fast.url, ['tags']);
  {
    const latency = async (writers: number, each: number): Promise<number[]> => {
      const from = fast.arrivals.length;
      let n = 0;
      await Promise.all(Array.from({ length: writers }, async () => {
        for (let i = 0; i < each; i++) await api(bare, 'POST', '/en/api/config/tags', { name: `l-${writers}-${n++}` });
      }));
      await waitFor('the latency deliveries', () => fast.arrivals.length >= from + writers * each);
      return fast.arrivals.slice(from).map((a) => a.delayMs);
    };
    console.log(`## 3. Commit to receiver (one instance, ${backend})\n\n| writers | changes | p50 ms | p99 ms | max ms |\n|---:|---:|---:|---:|---:|`);
    for (const [writers, each] of [[1, 300], [8, 100]] as const) {
      const delays = await latency(writers, each);
      console.log(`| ${writers} | ${delays.length} | ${percentile(delays, 50)} | ${percentile(delays, 99)} | ${Math.max(...delays)} |`);
    }
    console.log('\ngoal: p99 under 250 ms.\n');
  }
}

const TWO_INSTANCE_WRITERS = 4;
const TWO_INSTANCE_CHANGES = 1000;

/** 5. Two instances on one PostgreSQL database, one webhook, single creates from
 * TWO_INSTANCE_WRITERS writers on each instance at once: commit to receiver, and duplicates. */
async function twoInstances(root: string): Promise<void> {
  const receiver = await startReceiver();
  const database = await webhookBenchDatabase('postgres', root, 'two-instances');
  // One after the other: the first makes the schema and the key files the second reads.
  const first = await startOne(root, 'instance-a', database.url);
  const second = await startOne(root, 'instance-b', database.url).catch(async (error: unknown) => {
    await first.stop();
    throw error;
  });
  try {
    await webhook(first, 'shared', receiver.url, ['tags']);
    let n = 0;
    const each = TWO_INSTANCE_CHANGES / (2 * TWO_INSTANCE_WRITERS);
    await Promise.all([first, second].flatMap((service) =>
      Array.from({ length: TWO_INSTANCE_WRITERS }, async () => {
        for (let i = 0; i < each; i++) await api(service, 'POST', '/en/api/config/tags', { name: `pair-${n++}` });
      }),
    ));
    await waitFor(`${TWO_INSTANCE_CHANGES} deliveries`, () => receiver.ids.size >= TWO_INSTANCE_CHANGES, 120_000);
    // Time for a duplicate to show, were there one (a lease outlives an attempt by seconds).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const delays = receiver.arrivals.map((a) => a.delayMs);
    const duplicates = receiver.arrivals.length - receiver.ids.size;
    console.log(`## 5. Two instances on one PostgreSQL database\n\n${2 * TWO_INSTANCE_WRITERS} writers (${TWO_INSTANCE_WRITERS} on each instance), single creates, one webhook.\n`);
    console.log('| changes | deliveries | distinct webhook-ids | duplicates | p50 ms | p99 ms | max ms |\n|---:|---:|---:|---:|---:|---:|---:|');
    console.log(`| ${TWO_INSTANCE_CHANGES} | ${receiver.arrivals.length} | ${receiver.ids.size} | ${duplicates} | ${percentile(delays, 50)} | ${percentile(delays, 99)} | ${Math.max(...delays)} |`);
    console.log(`\ngoal: p99 under 1 s (${percentile(delays, 99) < 1000 ? 'met' : '**not met**'}), 0 duplicates (${duplicates === 0 ? 'met' : '**not met**'}).\n`);
  } finally {
    await second.stop().catch(() => undefined);
    await first.stop().catch(() => undefined);
    await receiver.close();
    await database.drop();
  }
}

async function main(): Promise<void> {
  ensureWrk();
  console.log(`# bench:webhooks\n\n${machine()}; ${ROUNDS} rounds of ${SECONDS} s; scenarios 1-3 on ${DATABASES.join(', ')}\n\nbefore: ${uptime()}\n`);
  if (SCENARIOS.some((n) => n <= 3)) {
    for (const backend of DATABASES) {
      const root = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
      try {
        await deliveries(root, backend);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
      console.log(`after ${backend}: ${uptime()}\n`);
    }
  }
  if (SCENARIOS.includes(4)) await deadReceiver(BASELINE, PROFILE);
  if (SCENARIOS.includes(5)) {
    const root = mkdtempSync(join(tmpdir(), 'bench-webhooks-pair-'));
    try {
      await twoInstances(root);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  console.log(`after: ${uptime()}`);
}

await main();
