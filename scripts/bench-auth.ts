// `npm run bench:auth`: what authentication costs on GET by id, in CPU instructions per
// request, counted by valgrind's callgrind in the service's own process. Unlike requests per
// second, an instruction count does not depend on what else the machine is doing: on a
// shared 2-core VM the throughput bench (npm run bench) put the token case anywhere between
// 0.61 and 0.99 of the anonymous one, run to run.
//
// For each variant the service runs under callgrind on its own copy of one SQLite database:
// anonymous (no token anywhere), an environment token (API_TOKENS), and a managed token among
// BENCH_AUTH_TOKENS managed ones. One client sends GET by id requests one after the other on
// a keep-alive connection: WARMUP of them (the JIT settles), then, ROUNDS times, callgrind's
// counts are dumped, REQUESTS are sent and the counts since dumped again. Variants take turns
// round by round.
// Prints instructions per request per round, their spread, and each token case against the
// anonymous one. Needs valgrind (Debian's package). Under callgrind a request costs about
// 80 ms of a loaded 2-core VM: the defaults (1,000 + 3 × 500 per variant) take about 10 min.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedServers, seedTokens } from './support/seed.js';
import { startService } from './support/service-process.js';

const MAIN = resolve(import.meta.dirname, '../dist/main.js');
const WARMUP = Number(process.env.BENCH_AUTH_WARMUP ?? 1000);
const REQUESTS = Number(process.env.BENCH_AUTH_REQUESTS ?? 500);
const ROUNDS = Number(process.env.BENCH_AUTH_ROUNDS ?? 3);
const MANAGED_TOKENS = Number(process.env.BENCH_AUTH_TOKENS ?? 1000);
const SERVERS = 1000;
/** Node under callgrind starts in tens of seconds on a loaded machine. */
const START_TIMEOUT_MS = 300_000;
const ENVIRONMENT_TOKEN = 'bench-environment-token-0123456789abcdef';
/** valgrind's gdbserver and callgrind_control find each other by pipes named after the user
 * and HOST, which is also the service's listening address. */
const VGDB_NAMES = { LOGNAME: 'bench', USER: 'bench', HOST: '127.0.0.1' };

interface Variant {
  readonly name: string;
  readonly dataDir: string;
  readonly env: Record<string, string>;
  readonly headers: Record<string, string>;
  child?: ChildProcess;
  url?: string;
  readonly perRequest: number[];
}

/** One data folder with its database and key files, made by the service itself, plus servers. */
async function prepare(dataDir: string): Promise<void> {
  const service = await startService(serviceEnv(dataDir));
  if ((await service.stop()) !== 0) throw new Error('the service did not stop cleanly');
  seedServers(join(dataDir, 'config.db'), SERVERS);
}

function serviceEnv(dataDir: string): Record<string, string> {
  return {
    DATABASE_URL: `sqlite:${join(dataDir, 'config.db')}`,
    SECRET_KEY_FILE: join(dataDir, 'secret.key'),
    TOKEN_KEY_FILE: join(dataDir, 'token.key'),
  };
}

function startUnderCallgrind(variant: Variant): Promise<void> {
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', `--callgrind-out-file=${join(variant.dataDir, 'callgrind.%p')}`, '--dump-instr=no', process.execPath, MAIN],
    {
      env: { PATH: process.env.PATH ?? '', ...VGDB_NAMES, PORT: '0', LOG_LEVEL: 'info', ...serviceEnv(variant.dataDir), ...variant.env },
      // Logs go to a file, as to a log shipper; valgrind's own lines to another.
      stdio: ['ignore', openSync(join(variant.dataDir, 'service.log'), 'a'), openSync(join(variant.dataDir, 'valgrind.log'), 'a')],
    },
  );
  variant.child = child;
  const deadline = Date.now() + START_TIMEOUT_MS;
  return new Promise((done, fail) => {
    const look = setInterval(() => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(readFileSync(join(variant.dataDir, 'service.log'), 'utf8'));
      if (match !== null) {
        clearInterval(look);
        variant.url = match[1];
        done();
      } else if (Date.now() > deadline || child.exitCode !== null) {
        clearInterval(look);
        fail(new Error(`${variant.name}: the service did not start under callgrind`));
      }
    }, 200);
  });
}

/** `count` GET by id, one after the other on one keep-alive connection; every one must be 200. */
async function load(variant: Variant, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < count; i++) {
      const path = `/en/api/config/servers/${1 + (i % SERVERS)}`;
      const status = await new Promise<number>((done, fail) => {
        const sent = request(`${variant.url}${path}`, { agent, headers: variant.headers }, (response) => {
          response.resume();
          response.on('end', () => done(response.statusCode ?? 0));
        });
        sent.on('error', fail);
        sent.end();
      });
      if (status !== 200) throw new Error(`${variant.name}: GET ${path} answered ${status}`);
    }
  } finally {
    agent.destroy();
  }
}

/** Dumps the counts since the last dump (callgrind then starts counting afresh) and resolves
 * to the instructions in it. vgdb hands the command over at the process's next scheduling
 * point, so callgrind_control may return before the dump is written: wait for the file. */
async function dump(variant: Variant): Promise<number> {
  const pid = variant.child!.pid!;
  const dumps = (): string[] => readdirSync(variant.dataDir).filter((name) => name.startsWith(`callgrind.${pid}.`));
  const before = dumps().length;
  const run = spawnSync('callgrind_control', ['--dump', String(pid)], { encoding: 'utf8', env: { ...process.env, ...VGDB_NAMES } });
  if (run.status !== 0) throw new Error(`callgrind_control: ${run.stderr}${run.stdout}`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const names = dumps();
    const latest = join(variant.dataDir, `callgrind.${pid}.${before + 1}`);
    if (names.length > before) {
      // Written whole once its totals line is there.
      const totals = /^totals: (\d+)/m.exec(readFileSync(latest, 'utf8'));
      if (totals !== null) return Number(totals[1]);
    }
    if (Date.now() > deadline) throw new Error(`${variant.name}: no callgrind dump of ${pid} in ${readdirSync(variant.dataDir).join(' ')}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function main(): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is needed: apt-get install valgrind');
  const root = mkdtempSync(join(tmpdir(), 'config-api-bench-auth-'));
  try {
    const base = join(root, 'base');
    await prepare(base);
    const copy = (name: string): string => {
      const dir = join(root, name);
      cpSync(base, dir, { recursive: true });
      return dir;
    };
    const anonymousDir = copy('anonymous');
    const environmentDir = copy('environment');
    const managedDir = copy('managed');
    const managedToken = seedTokens(join(managedDir, 'config.db'), join(managedDir, 'token.key'), MANAGED_TOKENS);
    const variants: Variant[] = [
      { name: 'anonymous', dataDir: anonymousDir, env: {}, headers: {}, perRequest: [] },
      { name: 'environment token', dataDir: environmentDir, env: { API_TOKENS: `bench=read:${ENVIRONMENT_TOKEN}` }, headers: { authorization: `Bearer ${ENVIRONMENT_TOKEN}` }, perRequest: [] },
      { name: `managed token (${MANAGED_TOKENS})`, dataDir: managedDir, env: {}, headers: { authorization: `Bearer ${managedToken}` }, perRequest: [] },
    ];
    try {
      // One at a time: two processes under callgrind would only slow each other down.
      for (const variant of variants) {
        await startUnderCallgrind(variant);
        await load(variant, WARMUP);
        process.stderr.write(`${variant.name}: started and warmed up\n`);
      }
      for (let round = 0; round < ROUNDS; round++) {
        for (const variant of variants) {
          await dump(variant);
          await load(variant, REQUESTS);
          variant.perRequest.push((await dump(variant)) / REQUESTS);
          process.stderr.write(`${variant.name}, round ${round + 1}: ${Math.round(variant.perRequest.at(-1)!)} instructions per request\n`);
        }
      }
    } finally {
      for (const variant of variants) variant.child?.kill('SIGKILL');
    }
    report(variants);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function report(variants: Variant[]): void {
  const anonymous = median(variants[0]!.perRequest);
  console.log(`\nGET by id, instructions per request (callgrind, ${REQUESTS} requests per round, ${ROUNDS} rounds, after ${WARMUP} to warm up)\n`);
  console.log('| variant | per round | median | spread (max-min)/median | vs anonymous |');
  console.log('|---|---|---|---|---|');
  for (const variant of variants) {
    const middle = median(variant.perRequest);
    const spread = (Math.max(...variant.perRequest) - Math.min(...variant.perRequest)) / middle;
    const versus = variant === variants[0] ? '—' : `${(((middle - anonymous) / anonymous) * 100).toFixed(1)} % (${Math.round(middle - anonymous)} instructions)`;
    console.log(`| ${variant.name} | ${variant.perRequest.map((n) => Math.round(n)).join(', ')} | ${Math.round(middle)} | ${(spread * 100).toFixed(1)} % | ${versus} |`);
  }
}

await main();
