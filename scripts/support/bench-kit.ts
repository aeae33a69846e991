// What every bench shares: targets loaded by wrk in alternating rounds, medians and spreads,
// the figures' table, the machine's load, and the servers the benches start (the service
// through service-process.ts, and small helper servers). A bench is then a table of
// scenarios, each naming the targets it is measured against (docs/performance.md, "Adding a
// scenario").
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuNanoseconds, startService, type ServiceProcess } from './service-process.js';
import { runWrk, type RequestTemplate, type WrkResult } from './wrk.js';

export type { RequestTemplate } from './wrk.js';

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Each target's warm-up before the rounds (the JIT, the service's caches): a service just
 * started runs its first seconds slower than it runs for days. */
export const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 2);
export const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';

/** One server a scenario loads: the service, a ceiling, a peer, another build. */
export interface Target {
  readonly name: string;
  readonly url: string;
  /** Its process: the CPU time it spends per answer is measured (all its threads). */
  readonly pid?: number;
  readonly request: RequestTemplate;
  /** Seconds of warm-up, if not WARM_UP_SECONDS (json-server's file grows with each POST). */
  readonly warmUpSeconds?: number;
}

export interface Round {
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  /** CPU time of the target's process per answer, µs (undefined without a pid). */
  readonly cpuMicros: number | undefined;
  readonly answered: number;
  readonly errors: number;
}

export interface Measured {
  readonly target: string;
  readonly rounds: readonly Round[];
}

/** Loads each target for WARM_UP_SECONDS, then ROUNDS rounds of SECONDS each, in turns, the
 * order rotated every round: the machine's speed drifts within minutes, and targets measured
 * one after the other would each see a different machine. Only one target is loaded at a
 * time; the others idle. */
export async function alternate(targets: readonly Target[]): Promise<Measured[]> {
  for (const target of targets) await runWrk(target.url, target.request, target.warmUpSeconds ?? WARM_UP_SECONDS);
  const rounds = targets.map(() => [] as Round[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let turn = 0; turn < targets.length; turn++) {
      const index = (turn + round) % targets.length;
      const target = targets[index]!;
      const before = target.pid === undefined ? 0 : cpuNanoseconds(target.pid);
      const result: WrkResult = await runWrk(target.url, target.request, SECONDS);
      const cpu = target.pid === undefined ? undefined : (cpuNanoseconds(target.pid) - before) / 1000 / Math.max(1, result.requests);
      rounds[index]!.push({ requestsPerSecond: result.requestsPerSecond, p99Ms: result.p99Ms, cpuMicros: cpu, answered: result.requests, errors: result.badStatus + result.socketErrors });
    }
  }
  return targets.map((target, index) => ({ target: target.name, rounds: rounds[index]! }));
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface Figure {
  readonly group: string;
  readonly scenario: string;
  readonly target: string;
  readonly medianRps: number;
  readonly minRps: number;
  readonly maxRps: number;
  readonly p99Ms: number;
  readonly cpuMicros: number | undefined;
  readonly errors: number;
  readonly answered: number;
  /** The first target's median over this one's, and the range of the round-by-round ratios. */
  readonly ratio: { median: number; min: number; max: number } | undefined;
}

/** The figures of one scenario: each target's median and spread, and the first target (the
 * service) against each of the others, by the ratio of the medians and round by round. */
export function figures(group: string, scenario: string, measured: readonly Measured[]): Figure[] {
  const first = measured[0]!;
  return measured.map((m, index) => {
    const rps = m.rounds.map((r) => r.requestsPerSecond);
    const perRound = m.rounds.map((r, i) => first.rounds[i]!.requestsPerSecond / r.requestsPerSecond);
    const cpu = m.rounds.map((r) => r.cpuMicros).filter((value): value is number => value !== undefined);
    return {
      group,
      scenario,
      target: m.target,
      medianRps: median(rps),
      minRps: Math.min(...rps),
      maxRps: Math.max(...rps),
      p99Ms: median(m.rounds.map((r) => r.p99Ms)),
      cpuMicros: cpu.length === 0 ? undefined : median(cpu),
      errors: m.rounds.reduce((sum, r) => sum + r.errors, 0),
      answered: m.rounds.reduce((sum, r) => sum + r.answered, 0),
      ratio: index === 0 ? undefined : { median: median(first.rounds.map((r) => r.requestsPerSecond)) / median(rps), min: Math.min(...perRound), max: Math.max(...perRound) },
    };
  });
}

const cell = (value: string | number, width: number): string => String(value).padStart(width);

/** The figures as a Markdown table: a row per target, the service first in each scenario. */
export function table(rows: readonly Figure[]): string {
  const lines = [
    '| rows | scenario | target | req/s median | min-max | p99 ms | CPU µs/req | service ÷ target (rounds) | errors |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of rows) {
    const ratio = f.ratio === undefined ? '' : `${f.ratio.median.toFixed(2)} (${f.ratio.min.toFixed(2)}-${f.ratio.max.toFixed(2)})`;
    lines.push(
      `| ${f.group} | ${f.scenario} | ${f.target} | ${cell(Math.round(f.medianRps), 6)} | ${Math.round(f.minRps)}-${Math.round(f.maxRps)} | ${f.p99Ms.toFixed(1)} | ` +
        `${f.cpuMicros === undefined ? '-' : Math.round(f.cpuMicros)} | ${ratio} | ${f.errors} |`,
    );
  }
  return lines.join('\n');
}

/** A figure an issue asks for: the service against `against` in `scenario` at least `atLeast`. */
export interface Goal {
  readonly scenario: string;
  readonly against: string;
  readonly atLeast: number;
  readonly source: string;
  /** Where the figure is out of reach, the target whose ratio to `against` shows the floor:
   * the most that the same work on the same stack reaches (issue #37). */
  readonly floor?: string;
  /** With `floor`: the floor's ratio is taken to this target (the same floor without the work
   * the goal measures, e.g. bare Fastify writing without sending webhooks), and shown whether
   * the goal is met or not: the most the ratio itself can reach on this stack. */
  readonly floorAgainst?: string;
}

export function goalsTable(goals: readonly Goal[], rows: readonly Figure[]): string {
  const lines = ['| figure | target | measured: ratio of medians (rounds) | | floor: the same work on bare Fastify ÷ the same target |', '|---|---:|---:|---|---:|'];
  for (const goal of goals) {
    for (const f of rows.filter((row) => row.scenario === goal.scenario && row.target === goal.against && row.ratio !== undefined)) {
      const met = f.ratio!.median >= goal.atLeast;
      const floor = rows.find((row) => row.group === f.group && row.scenario === f.scenario && row.target === goal.floor);
      const floorAgainst = rows.find((row) => row.group === f.group && row.scenario === f.scenario && row.target === goal.floorAgainst);
      const floorRatio =
        floor === undefined ? '' : floorAgainst !== undefined ? `${(floor.medianRps / floorAgainst.medianRps).toFixed(2)} (${goal.floor} ÷ ${goal.floorAgainst})` : met ? '' : `${(floor.medianRps / f.medianRps).toFixed(2)} (${goal.floor})`;
      lines.push(`| ${f.group} ${goal.scenario}, service ÷ ${goal.against} (${goal.source}) | ${goal.atLeast} | ${f.ratio!.median.toFixed(2)} (${f.ratio!.min.toFixed(2)}-${f.ratio!.max.toFixed(2)}) | ${met ? 'met' : '**not met**'} | ${floorRatio} |`);
    }
  }
  return lines.join('\n');
}

/** `uptime`'s line: the load other work put on the machine is part of every figure. */
export function uptime(): string {
  return spawnSync('uptime', { encoding: 'utf8' }).stdout.trim();
}

export function machine(): string {
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
  const cores = readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm)?.length ?? 0;
  return `Node ${process.version}, ${cpu}, ${cores} cores`;
}

/** The service as an operator runs it: the built dist/main.js, its log lines going to a file
 * (as under a service manager), ready once /healthz answers (at LOG_LEVEL=warn no listening
 * line is written). `main`: another build's entry point. */
export function startBenchService(
  dataDir: string,
  env: Record<string, string>,
  { log = 'service.log', main, execArgv }: { log?: string; main?: string; execArgv?: readonly string[] } = {},
): Promise<ServiceProcess> {
  return startService(
    {
      SECRET_KEY_FILE: join(dataDir, 'secret.key'),
      TOKEN_KEY_FILE: join(dataDir, 'token.key'),
      LOG_LEVEL,
      ...(process.env.SQLITE_SYNCHRONOUS ? { SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS } : {}),
      ...env,
    },
    1,
    main,
    { readyWhen: 'healthz', logFile: join(dataDir, log), ...(execArgv === undefined ? {} : { execArgv }) },
  );
}

export interface HelperServer {
  readonly url: string;
  readonly pid: number;
  close(): Promise<void>;
}

/** One of the benches' own small servers (the node:http ceiling, the read floors), in a
 * process of its own, run through tsx; it prints `listening PORT` once it accepts connections. */
export function startHelperServer(script: string, args: readonly string[]): Promise<HelperServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((done, fail) => {
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const listening = /listening (\d+)/.exec(output);
      if (listening === null) return;
      done({
        url: `http://127.0.0.1:${listening[1]}`,
        pid: child.pid!,
        close: () =>
          new Promise((closed) => {
            if (child.exitCode !== null) return closed();
            child.once('exit', () => closed());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => fail(new Error(`${script} exited with ${code}`)));
  });
}

let rendered = 0;

/** The template with its `{{...}}` evaluated once in JavaScript (the expressions are the
 * subset Lua and JavaScript share: numbers, + - * / %, math.floor, random(lo, hi)), for the
 * one request a bench sends itself: the sample a ceiling's body is copied from. */
export function render(template: RequestTemplate, n = ++rendered): { method: string; path: string; headers: Record<string, string>; body: string | undefined } {
  const math = { floor: Math.floor };
  const random = (lo: number, hi: number): number => lo + Math.floor(Math.random() * (hi - lo + 1));
  const fill = (text: string): string =>
    text.replace(/\{\{(.*?)\}\}/g, (_, expression: string) => String(new Function('n', 'random', 'math', `return (${expression});`)(n, random, math)));
  return {
    method: template.method,
    path: fill(template.path),
    headers: { ...(template.body === undefined ? {} : { 'content-type': 'application/json' }), ...template.headers },
    body: template.body === undefined ? undefined : fill(template.body),
  };
}

/** Sends the template once: its status and body. */
export async function sample(url: string, template: RequestTemplate): Promise<{ status: number; body: string }> {
  const request = render(template);
  const response = await fetch(`${url}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  return { status: response.status, body: await response.text() };
}
