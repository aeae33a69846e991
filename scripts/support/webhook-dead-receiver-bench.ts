// Scenario 4 of `npm run bench:webhooks` (issue #32): 10,000 deliveries pending for a dead
// receiver, retried every 5 s (WEBHOOK_RETRY_SCHEDULE_MS, so that the retries go on
// throughout the measurement instead of in waves minutes apart: a dead receiver's worst case).
// The figure: the API's GET p99 unchanged within noise, resident memory under 200 MB, none lost.
//
// Each service with a webhook first has its receiver answer 500, so that every delivery is
// attempted once and `retrying`; then the receiver closes its port and every connection is
// refused. The services, the same data with no webhook ("nothing pending"), this build and
// BENCH_BASELINE's (a built checkout) with the 10,000, run one at a time, the others stopped
// (SIGSTOP): a service's retries would take the cores from the one measured. A resumed
// service has its missed retries due at once, so each turn lets it run BENCH_DEAD_SETTLE_SECONDS
// (8) before wrk loads it: the figure is of its steady state, not of that catch-up. The turns
// rotate within a round, BENCH_DEAD_ROUNDS rounds (6) after one that warms up; each pending
// side's p99 is compared with the nothing-pending side's of the same round, and the median
// and the range of those ratios are shown, with each side's CPU time per GET (all its threads,
// the retries included), its CPU time while unloaded (the settle's last IDLE_SECONDS: what the
// retries cost with no request to share with) and the delivery attempts it made while loaded.
//
// A receiver's port is taken below the ephemeral range, so that once closed no service or
// connection of this bench is given it (a closed ephemeral port was, now and then, and the
// "dead" receiver answered): each turn checks that it still refuses connections.
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median, SECONDS, startBenchService, uptime } from './bench-kit.js';
import { cpuNanoseconds, residentMegabytes, type ServiceProcess } from './service-process.js';
import { api, AUTH, metric, TOKEN, waitFor } from './webhook-bench-http.js';
import { runWrk } from './wrk.js';

const CHANGES = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_DEAD_ROUNDS ?? 6);
const SETTLE_SECONDS = Number(process.env.BENCH_DEAD_SETTLE_SECONDS ?? 8);
const IDLE_SECONDS = 3;
const BULK = 1000;
/** The receivers' ports: below Linux's ephemeral range (32768-60999). */
const PORTS_FROM = 20_000;
const PORTS_COUNT = 12_000;
const RETRYING = 'webhook_delivery_attempts_total\\{result="retrying"\\}';

interface Turn {
  readonly p50: number;
  readonly p99: number;
  readonly rps: number;
  readonly cpuMicros: number;
  readonly attemptsPerSecond: number;
  /** CPU time a second while unloaded, ms. */
  readonly idleCpuMs: number;
}

interface Side {
  readonly name: string;
  readonly service: ServiceProcess;
  readonly webhook: boolean;
  /** The dead receiver's port (refusing connections). */
  readonly port: number | undefined;
  readonly turns: Turn[];
  peak: number;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** `server` listening on a free loopback port below the ephemeral range. */
async function listenBelowEphemeral(server: Server): Promise<number> {
  for (;;) {
    const port = PORTS_FROM + Math.floor(Math.random() * PORTS_COUNT);
    const listening = await new Promise<boolean>((done) => {
      server.once('error', () => done(false));
      server.listen(port, '127.0.0.1', () => done(true));
    });
    if (listening) return port;
  }
}

/** Whether a connection to `port` on loopback is refused. */
function refuses(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
  });
}

/** A service with the same CHANGES rows; with `webhook`, each of their deliveries attempted
 * once (its receiver answering 500) and then its receiver gone: connections refused. */
async function pendingService(root: string, name: string, webhook: boolean, main: string | undefined, profile: string | undefined): Promise<{ service: ServiceProcess; port: number | undefined }> {
  const execArgv = profile === undefined ? {} : { execArgv: ['--cpu-prof', '--cpu-prof-dir', resolve(profile)] };
  const env = { DATABASE_URL: `sqlite:${join(root, `${name}.db`)}`, API_TOKENS: `bench=admin:${TOKEN}`, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE_MS: '5000' };
  const service = await startBenchService(root, env, { log: `${name}.log`, ...(main === undefined ? {} : { main }), ...execArgv });
  await api(service, 'POST', '/en/api/config/tags', { name: 'read-me' });
  const failing = createServer((request, response) => request.resume().on('end', () => response.writeHead(500).end()));
  const port = await listenBelowEphemeral(failing);
  try {
    if (webhook) await api(service, 'POST', '/en/api/webhooks', { name: 'dead', url: `http://127.0.0.1:${port}/hook`, resources: ['clients'] });
    for (let start = 0; start < CHANGES; start += BULK) {
      await api(service, 'POST', '/en/api/config/clients', Array.from({ length: BULK }, (_, i) => ({ libelle: `c-${start + i}` })));
    }
    if (webhook) await waitFor(`${name}: every delivery attempted once`, async () => (await metric(service, RETRYING)) >= CHANGES);
  } finally {
    // The receiver is gone: its port refuses every connection from now on.
    failing.closeAllConnections();
    failing.close();
    await once(failing, 'close');
  }
  return { service, port: webhook ? port : undefined };
}

/** One turn: `side` resumed, left to settle, loaded SECONDS, stopped again. */
async function turn(side: Side): Promise<Turn> {
  if (side.port !== undefined && !(await refuses(side.port))) throw new Error(`${side.name}: its receiver's port ${side.port} no longer refuses connections`);
  side.service.child.kill('SIGCONT');
  await sleep((SETTLE_SECONDS - IDLE_SECONDS) * 1000);
  const idleBefore = cpuNanoseconds(side.service.pid);
  await sleep(IDLE_SECONDS * 1000);
  const idleCpuMs = (cpuNanoseconds(side.service.pid) - idleBefore) / 1e6 / IDLE_SECONDS;
  const attemptsBefore = side.webhook ? await metric(side.service, RETRYING) : 0;
  const cpuBefore = cpuNanoseconds(side.service.pid);
  const result = await runWrk(side.service.url, { method: 'GET', path: '/en/api/config/tags/1', headers: AUTH }, SECONDS);
  const cpu = cpuNanoseconds(side.service.pid) - cpuBefore;
  const attempts = side.webhook ? (await metric(side.service, RETRYING)) - attemptsBefore : 0;
  side.service.child.kill('SIGSTOP');
  return { p50: result.p50Ms, p99: result.p99Ms, rps: result.requestsPerSecond, cpuMicros: cpu / 1000 / Math.max(1, result.requests), attemptsPerSecond: attempts / result.seconds, idleCpuMs };
}

const spread = (values: readonly number[], digits = 1): string => `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

export async function deadReceiver(baseline: string | undefined, profile: string | undefined): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-webhooks-dead-'));
  const sides: Side[] = [];
  const sampler = setInterval(() => {
    for (const side of sides) side.peak = Math.max(side.peak, residentMegabytes(side.service.pid));
  }, 200);
  const started = uptime();
  try {
    const add = async (name: string, file: string, webhook: boolean, main?: string): Promise<void> => {
      const { service, port } = await pendingService(root, file, webhook, main, webhook && main === undefined ? profile : undefined);
      sides.push({ name, service, webhook, port, turns: [], peak: 0 });
      service.child.kill('SIGSTOP');
    };
    await add('nothing pending', 'quiet', false);
    await add(`${CHANGES} pending, this build`, 'dead', true);
    if (baseline !== undefined) await add(`${CHANGES} pending, baseline`, 'dead-baseline', true, resolve(baseline, 'dist/main.js'));
    for (let round = 0; round <= ROUNDS; round++) {
      for (let index = 0; index < sides.length; index++) {
        const side = sides[(index + round) % sides.length]!;
        const measured = await turn(side);
        // The first round warms up.
        if (round > 0) side.turns.push(measured);
      }
    }
    const quiet = sides[0]!.turns;
    console.log(`## 4. ${CHANGES} deliveries pending for a dead receiver\n`);
    console.log(`GET /tags/1 from ${process.env.BENCH_CONNECTIONS ?? 32} connections; ${ROUNDS} rounds (after one that warms up), each service in turn, the order rotated each round; one service running at a time (the others SIGSTOPped), each resumed ${SETTLE_SECONDS} s before its ${SECONDS} s of load. Every delivery attempted once (receiver answering 500), then the receiver's port closed: connections refused; retries every 5 s. Load: ${started} at the start, ${uptime()} at the end.\n`);
    console.log('| service | req/s median | p50 ms median | p99 ms median (min-max) | p99 ÷ nothing pending, same round: median (min-max) | CPU µs per GET median (min-max) | CPU ms a second unloaded, median (min-max) | delivery attempts a second while loaded | RSS peak MB |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const side of sides) {
      const ratios = side.turns.map((measured, i) => measured.p99 / quiet[i]!.p99);
      console.log(
        `| ${side.name} | ${Math.round(median(side.turns.map((t) => t.rps)))} | ${median(side.turns.map((t) => t.p50)).toFixed(2)} | ${spread(side.turns.map((t) => t.p99))} | ${spread(ratios, 2)} | ` +
          `${spread(side.turns.map((t) => t.cpuMicros), 0)} | ${spread(side.turns.map((t) => t.idleCpuMs))} | ${median(side.turns.map((t) => t.attemptsPerSecond)).toFixed(1)} | ${side.peak.toFixed(0)} |`,
      );
    }
    console.log('\np99 ms by round:\n');
    for (const side of sides) console.log(`- ${side.name}: ${side.turns.map((t) => t.p99.toFixed(1)).join(', ')}`);
    console.log('');
    for (const side of sides) side.service.child.kill('SIGCONT');
    for (const side of sides.filter((candidate) => candidate.webhook)) {
      // None lost: every delivery still stored and waiting, counted in the database.
      const pending = await metric(side.service, 'webhook_deliveries_pending');
      const hook = (await api(side.service, 'GET', '/en/api/webhooks?name=dead')).items[0];
      const page = await api(side.service, 'GET', `/en/api/webhooks/${hook.id}/deliveries?status=succeeded&limit=1`);
      console.log(`${side.name}: pending at the end ${pending} of ${CHANGES} (none lost: ${pending === CHANGES && page.items.length === 0 ? 'yes' : 'NO'}); resident memory peak ${side.peak.toFixed(0)} MB (goal under 200 MB: ${side.peak < 200 ? 'yes' : 'NO'}); its receiver's port refused connections before every turn.`);
    }
    console.log('');
  } finally {
    clearInterval(sampler);
    for (const side of sides) {
      side.service.child.kill('SIGCONT');
      await side.service.stop().catch(() => undefined);
    }
    rmSync(root, { recursive: true, force: true });
  }
}
