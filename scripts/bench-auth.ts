// `npm run bench:auth`: what authentication adds to GET by id, at 10 and at 10,000 managed
// tokens (BENCH_AUTH_TOKENS), measured so that a shared, noisy 2-core VM cannot hide a 5 %
// difference: requests per second there drift by up to 2x within minutes (npm run bench put
// the token case anywhere between 0.61 and 0.99 of the anonymous one).
//
// Services on copies of one SQLite file with BENCH_AUTH_SERVERS servers — two anonymous ones
// (no token anywhere) and one per token count, queried with the last seeded token — are loaded
// in turns by autocannon, BENCH_AUTH_SECONDS of GET by id each per round, BENCH_AUTH_ROUNDS
// rounds, the order rotated each round. Three measurements come out of the same rounds:
//
// - In the service, the figure: every service runs under V8's sampling profiler, and the share
//   of its samples in the access hooks (and what they call) is read round by round
//   (scripts/support/profile-share.ts). A share is taken within one process over the same
//   moments: a neighbour that slows the service slows the hooks and the rest alike.
// - End to end: each service's CPU time per request (all threads, /proc/<pid>/task/*/schedstat)
//   and each token service against the mean of the two anonymous ones, round by round, as a
//   median with its spread and a 95 % confidence interval. The second anonymous service is the
//   control: its ratio to the first shows what the method cannot resolve. On a loaded VM, far
//   more than 5 %; printed for a quiet machine.
// - In a loop: the hooks' functions timed in this process (scripts/support/auth-hook-timing.ts),
//   a lower bound (the loop keeps code and data in the CPU's caches).
//
// BENCH_AUTH_KEEP=1 keeps the temporary folder (databases, throw-away keys, logs, profiles).
//
// Replaces a callgrind count of instructions per request (until 2026-11-23): its rounds
// differed by 38-65 % (where V8's collections fell), and valgrind made a request 80 ms long.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { hookVariants, timeHooks, type HookVariant } from './support/auth-hook-timing.js';
import { seedServers, seedTokens } from './support/seed.js';
import { readProfile, shares, type Share, type Window } from './support/profile-share.js';
import { cpuNanoseconds, startService, type ServiceProcess } from './support/service-process.js';

const SERVERS = Number(process.env.BENCH_AUTH_SERVERS ?? 10_000);
const TOKEN_COUNTS = (process.env.BENCH_AUTH_TOKENS ?? '10,10000').split(',').filter(Boolean).map(Number);
const ROUNDS = Number(process.env.BENCH_AUTH_ROUNDS ?? 12);
const SECONDS = Number(process.env.BENCH_AUTH_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_AUTH_CONNECTIONS ?? 32);
/** Requests per variant and round in the attribution's timed loop. */
const HOOK_ITERATIONS = 200_000;
/** A sample every 250 µs: tens of thousands per service and run. */
const PROFILE_INTERVAL_US = 250;

interface Variant {
  readonly name: string;
  readonly service: ServiceProcess;
  readonly headers: Record<string, string>;
  /** CPU µs per request, one per round. */
  readonly cpu: number[];
  /** Requests per second, one per round. */
  readonly rate: number[];
  /** When it was loaded, one per round (µs, monotonic clock): where its profile is read. */
  readonly windows: Window[];
}

function serviceEnv(dataDir: string): Record<string, string> {
  return {
    DATABASE_URL: `sqlite:${join(dataDir, 'config.db')}`,
    SECRET_KEY_FILE: join(dataDir, 'secret.key'),
    TOKEN_KEY_FILE: join(dataDir, 'token.key'),
    SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? '',
  };
}

/** Logs go to a file, as to a log shipper (LOG_LEVEL info: one line per request). Every
 * service is profiled, so that the profiler's own cost is on both sides of a ratio. */
const start = (dataDir: string, profiles: string): Promise<ServiceProcess> =>
  startService(serviceEnv(dataDir), 1, undefined, {
    logFile: join(dataDir, 'service.log'),
    execArgv: ['--cpu-prof', `--cpu-prof-dir=${profiles}`, `--cpu-prof-interval=${PROFILE_INTERVAL_US}`],
  });

/** What a token adds inside the service: the two access hooks and what they call. */
const ACCESS_HOOKS = ['http/plugins/authentication.js', 'http/plugins/authorization.js'];

/** GET by id from CONNECTIONS connections, `amount` of them or for `seconds`; every answer
 * must be a 200. */
async function load(variant: Variant, until: { amount: number } | { duration: number }, id: () => number): Promise<number> {
  const result = await autocannon({
    url: variant.service.url,
    connections: CONNECTIONS,
    ...until,
    requests: [{ method: 'GET', headers: variant.headers, setupRequest: (request: any) => ({ ...request, path: `/en/api/config/servers/${id()}` }) }],
  });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0) {
    const statuses = Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => `${count} × ${status}`);
    throw new Error(`${variant.name}: ${result.errors} errors, ${result.timeouts} timeouts, answers ${statuses.join(', ')}`);
  }
  return result.requests.total;
}

const randomId = (): number => 1 + Math.floor(Math.random() * SERVERS);

/** One service's turn in a round: SECONDS of GET by id (a time, not a number of requests:
 * autocannon ends on a whole second, which would make every rate alike); its CPU time per
 * request and its rate. */
async function measure(variant: Variant): Promise<void> {
  const before = cpuNanoseconds(variant.service.pid);
  const started = process.hrtime.bigint();
  const answered = await load(variant, { duration: SECONDS }, randomId);
  const ended = process.hrtime.bigint();
  variant.cpu.push((cpuNanoseconds(variant.service.pid) - before) / 1000 / answered);
  variant.rate.push(answered / (Number(ended - started) / 1e9));
  variant.windows.push({ from: Number(started / 1000n), to: Number(ended / 1000n) });
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!) * (at - low);
}
const median = (values: readonly number[]): number => quantile(values, 0.5);

/** A distribution-free 95 % confidence interval of the median: the order statistics k and
 * n+1-k, k the largest with P(Binomial(n, 1/2) < k) <= 2.5 %. */
function medianInterval(values: readonly number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  let k = 0;
  let below = 0; // P(X < k + 1) as k grows
  let term = 0.5 ** n; // P(X = 0)
  for (let j = 0; j < n; j++) {
    if (below + term > 0.025) break;
    below += term;
    term = (term * (n - j)) / (j + 1);
    k = j + 1;
  }
  return k === 0 ? [sorted[0]!, sorted[n - 1]!] : [sorted[k - 1]!, sorted[n - k]!];
}

const percent = (ratio: number): string => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;
const load1 = (): string => loadavg().map((value) => value.toFixed(1)).join(' ');

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'config-api-bench-auth-'));
  const loadBefore = load1();
  const variants: Variant[] = [];
  try {
    // One database made by the service itself, then a copy per service.
    const base = join(root, 'base');
    mkdirSync(base);
    const profiles = join(root, 'profiles');
    const first = await start(base, profiles);
    if ((await first.stop()) !== 0) throw new Error('the service did not stop cleanly');
    seedServers(join(base, 'config.db'), SERVERS);
    const copy = (name: string): string => {
      const dir = join(root, name);
      cpSync(base, dir, { recursive: true, filter: (source) => !source.endsWith('service.log') });
      return dir;
    };
    for (const name of ['anonymous', 'anonymous (control)']) variants.push({ name, service: await start(copy(name.replace(/\W+/g, '-')), profiles), headers: {}, cpu: [], rate: [], windows: [] });
    for (const count of TOKEN_COUNTS) {
      const dir = copy(`tokens-${count}`);
      // The secret stays in this process: never printed, gone with the folder.
      const token = seedTokens(join(dir, 'config.db'), join(dir, 'token.key'), count);
      variants.push({ name: `token among ${count}`, service: await start(dir, profiles), headers: { authorization: `Bearer ${token}` }, cpu: [], rate: [], windows: [] });
    }
    // Warm-up: every server once into the entry cache (all of them fit at 10,000), twice over
    // so that the JIT settles; then a round that is not counted.
    for (const variant of variants) {
      let next = 0;
      await load(variant, { amount: 2 * SERVERS }, () => 1 + (next++ % SERVERS));
    }
    for (const variant of variants) await measure(variant);
    for (const variant of variants) variant.cpu.length = variant.rate.length = variant.windows.length = 0;
    const hooks = hookVariants(TOKEN_COUNTS);
    timeHooks(hooks, HOOK_ITERATIONS); // warm-up repetition, dropped below
    for (const hook of hooks) hook.nanoseconds.length = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Each service takes each place in the order equally often: no side always follows the
      // same neighbour or meets the same moment of a round.
      const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
      for (const variant of round % 2 === 0 ? order : order.reverse()) await measure(variant);
      timeHooks(hooks, HOOK_ITERATIONS);
      process.stderr.write(`round ${round + 1}/${ROUNDS}: ${variants.map((v) => `${v.name} ${v.cpu.at(-1)!.toFixed(1)} µs`).join(', ')}\n`);
    }
    // The profiles are written as the services exit.
    const stopped = variants.splice(0);
    for (const variant of stopped) await variant.service.stop();
    const inService = stopped.map((variant) => shares(readProfile(profiles, variant.service.pid), variant.windows, ACCESS_HOOKS));
    report(stopped, hooks, inService, loadBefore);
  } finally {
    for (const variant of variants) await variant.service.stop();
    if (process.env.BENCH_AUTH_KEEP === undefined) rmSync(root, { recursive: true, force: true });
    else process.stderr.write(`kept ${root}\n`);
  }
}

function report(variants: readonly Variant[], hooks: readonly HookVariant[], inService: readonly Share[][], loadBefore: string): void {
  const [anonymous, control] = variants;
  const reference = anonymous!.cpu.map((cpu, round) => (cpu + control!.cpu[round]!) / 2);
  const referenceRate = anonymous!.rate.map((rate, round) => (rate + control!.rate[round]!) / 2);
  const cpuModel = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
  const out = (line = ''): boolean => process.stdout.write(`${line}\n`);
  out();
  out(
    `${new Date().toISOString().slice(0, 16)}Z, Node ${process.version}, ${cpuModel}, ${SERVERS} servers (SQLite), GET by id, ` +
      `${ROUNDS} rounds of ${SECONDS} s per service in turns, ${CONNECTIONS} connections; load average ${loadBefore} before, ${load1()} after`,
  );
  out();
  out('End to end: CPU time of the service per request, and each token service against the mean of the two anonymous ones, round by round');
  out();
  out('| service | CPU µs/request, median (min-max) | CPU ratio, median | IQR | min-max | 95 % CI of the median | req/s, median | req/s ratio, median (IQR) |');
  out('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const variant of variants) {
    const cpu = `${median(variant.cpu).toFixed(1)} (${Math.min(...variant.cpu).toFixed(1)}-${Math.max(...variant.cpu).toFixed(1)})`;
    // The control against the first anonymous service; the token services against both.
    const base = variant === anonymous ? undefined : variant === control ? anonymous!.cpu : reference;
    const baseRate = variant === control ? anonymous!.rate : referenceRate;
    let cells = '- | - | - | - | - | -';
    if (base !== undefined) {
      const ratios = variant.cpu.map((cpu, round) => cpu / base[round]!);
      const rates = variant.rate.map((rate, round) => rate / baseRate[round]!);
      const [low, high] = medianInterval(ratios);
      cells =
        `${percent(median(ratios))} | ${percent(quantile(ratios, 0.25))} to ${percent(quantile(ratios, 0.75))} | ` +
        `${percent(Math.min(...ratios))} to ${percent(Math.max(...ratios))} | ${percent(low)} to ${percent(high)} | ` +
        `${Math.round(median(variant.rate))} | ${median(rates).toFixed(3)} (${quantile(rates, 0.25).toFixed(3)}-${quantile(rates, 0.75).toFixed(3)})`;
    }
    if (variant === anonymous) cells = `- | - | - | - | ${Math.round(median(variant.rate))} | -`;
    out(`| ${variant.name} | ${cpu} | ${cells} |`);
  }
  out();
  out(`Attribution: the access hooks' work in a loop of ${HOOK_ITERATIONS} requests, once per round, against the anonymous services' CPU per request of that round`);
  out();
  out('| hooks for | ns/request, median (min-max) | added to anonymous, ns | as a share of a request, median (min-max) |');
  out('|---|---:|---:|---:|');
  const none = hooks[0]!;
  for (const hook of hooks) {
    const added = hook.nanoseconds.map((ns, round) => ns - none.nanoseconds[round]!);
    const shares = added.map((ns, round) => ns / (reference[round]! * 1000));
    const range = (values: number[], digits: number, scale = 1): string =>
      `${(median(values) * scale).toFixed(digits)} (${(Math.min(...values) * scale).toFixed(digits)}-${(Math.max(...values) * scale).toFixed(digits)})`;
    out(`| ${hook.name} | ${range(hook.nanoseconds, 0)} | ${hook === none ? '-' : Math.round(median(added))} | ${hook === none ? '-' : `${range(shares, 2, 100)} %`} |`);
  }
  out();
  out(`In the service: the share of its CPU samples (one every ${PROFILE_INTERVAL_US} µs, JavaScript thread) in the access hooks and what they call, round by round`);
  out();
  out('| service | samples per round, median | share, median | IQR | min-max | 95 % CI of the median | added to an anonymous request, median |');
  out('|---|---:|---:|---:|---:|---:|---:|');
  const anonymousShares = inService[0]!.map((round) => round.inside / round.busy);
  variants.forEach((variant, v) => {
    const rounds = inService[v]!;
    const share = rounds.map((round) => round.inside / round.busy);
    // What the hooks cost beyond the anonymous service's own run of them, relative to the
    // rest of a request: s / (1 - s) with s the difference of the shares.
    const added = share.map((value, round) => (value - anonymousShares[round]!) / (1 - value));
    const [low, high] = medianInterval(share);
    const pct = (value: number): string => `${(value * 100).toFixed(2)} %`;
    out(
      `| ${variant.name} | ${Math.round(median(rounds.map((round) => round.busy)))} | ${pct(median(share))} | ${pct(quantile(share, 0.25))} to ${pct(quantile(share, 0.75))} | ` +
        `${pct(Math.min(...share))} to ${pct(Math.max(...share))} | ${pct(low)} to ${pct(high)} | ${v === 0 ? '-' : `${median(added) >= 0 ? '+' : ''}${pct(median(added))}`} |`,
    );
  });
}

main()