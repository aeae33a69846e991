// The benches' load generator: wrk (Debian's package), a native process of its own, so that
// the load it makes costs the measured servers nothing but a core's share. The earlier
// generator, autocannon, ran inside the bench's Node process: on two cores it took CPU from
// the very ceiling it measured and squeezed every ratio towards 1 (issue #37).
//
// A request is a template: method, path, headers and body, where `{{...}}` holds a Lua
// expression that wrk evaluates for each request, with `n` the request's sequence number
// (unique across the runs of one bench: each run starts past the last) and `random(lo, hi)`.
// A template without `{{` is sent as it is, the way wrk is fastest.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RequestTemplate {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface WrkResult {
  /** Responses received (any status). */
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  /** Responses outside 2xx and 3xx. */
  readonly badStatus: number;
  /** Connect, read and write errors and time-outs. */
  readonly socketErrors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const THREADS = Number(process.env.BENCH_WRK_THREADS ?? 1);
/** Each run's sequence numbers start here and move on by this much: unique bodies throughout. */
const SEQUENCE_STRIDE = 10_000_000;
let runs = 0;

/** Installs Debian's wrk when it is missing (the bench, and .ci/run, are root here). */
export function ensureWrk(): string {
  const found = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' });
  if (found.status === 0) return found.stdout.trim();
  process.stderr.write('wrk is missing: installing Debian\'s package\n');
  const install = spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk'], { stdio: 'inherit' });
  if (install.status !== 0) throw new Error('could not install wrk: apt-get install wrk');
  return ensureWrk();
}

/** A Lua string literal (LuaJIT takes no \u escapes: other bytes go in as they are). */
function luaString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;
}

/** A template part as a Lua expression: literal text and `{{expr}}` joined with `..`. */
function luaExpression(template: string): string {
  const parts: string[] = [];
  let rest = template;
  for (;;) {
    const start = rest.indexOf('{{');
    if (start < 0) break;
    const end = rest.indexOf('}}', start);
    if (end < 0) throw new Error(`unclosed {{ in ${template}`);
    if (start > 0) parts.push(luaString(rest.slice(0, start)));
    parts.push(`tostring(${rest.slice(start + 2, end)})`);
    rest = rest.slice(end + 2);
  }
  if (rest !== '' || parts.length === 0) parts.push(luaString(rest));
  return parts.join(' .. ');
}

function luaTable(headers: Readonly<Record<string, string>>): string {
  return `{ ${Object.entries(headers).map(([name, value]) => `[${luaString(name)}] = ${luaString(value)}`).join(', ')} }`;
}

/** The Lua script for one template; `done` prints the figures as one JSON line. */
export function wrkScript(template: RequestTemplate): string {
  const headers = { ...(template.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...template.headers };
  const dynamic = template.path.includes('{{') || (template.body ?? '').includes('{{');
  const request = dynamic
    ? `local counter = 0
local headers = ${luaTable(headers)}
request = function()
  counter = counter + 1
  local n = first + counter
  return wrk.format(${luaString(template.method)}, ${luaExpression(template.path)}, headers, ${template.body === undefined ? 'nil' : luaExpression(template.body)})
end`
    : `wrk.method = ${luaString(template.method)}
wrk.path = ${luaString(template.path)}
${Object.entries(headers).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`).join('\n')}
${template.body === undefined ? '' : `wrk.body = ${luaString(template.body)}`}`;
  return `local first = 0
local random = math.random
init = function(args)
  first = tonumber(args[1]) or 0
  math.randomseed(first + os.time())
end
${request}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_RESULT {"requests":%d,"micros":%d,"status":%d,"socket":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))
end
`;
}

/** Loads `url` with the template for `seconds` (whole seconds, wrk's unit). */
export async function runWrk(url: string, template: RequestTemplate, seconds: number, connections = CONNECTIONS): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const script = join(dir, 'request.lua');
  writeFileSync(script, wrkScript(template));
  runs += 1;
  const first = runs * SEQUENCE_STRIDE;
  try {
    const output = await new Promise<string>((done, fail) => {
      const child = spawn('wrk', ['-t', String(THREADS), '-c', String(connections), '-d', `${Math.max(1, Math.round(seconds))}s`, '--timeout', '10s', '-s', script, url, '--', String(first)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      child.once('error', fail);
      child.once('close', (code) => (code === 0 ? done(text) : fail(new Error(`wrk exited with ${code}: ${text}`))));
    });
    const line = /WRK_RESULT (\{.*\})/.exec(output);
    if (line === null) throw new Error(`wrk printed no result:\n${output}`);
    const raw = JSON.parse(line[1]!) as { requests: number; micros: number; status: number; socket: number; p50: number; p99: number };
    const secondsTaken = raw.micros / 1e6;
    return {
      requests: raw.requests,
      seconds: secondsTaken,
      requestsPerSecond: raw.requests / secondsTaken,
      badStatus: raw.status,
      socketErrors: raw.socket,
      p50Ms: raw.p50 / 1000,
      p99Ms: raw.p99 / 1000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
