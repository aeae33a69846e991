import { mkdtempSync, readdirSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from './support/service-process.js';
import { seedServers } from './support/seed.js';
import { runWrk } from './support/wrk.js';
const builds: Record<string, string | undefined> = { current: undefined, base: '/root/.cache/pmacontrol-bench/build-b3a217622994/dist/main.js' };
const services: Record<string, Awaited<ReturnType<typeof startService>>> = {};
const dirs: Record<string, string> = {};
for (const [name, main] of Object.entries(builds)) {
  const dir = mkdtempSync(join(tmpdir(), `prof2-${name}-`));
  dirs[name] = dir;
  const env = { DATABASE_URL: `sqlite:${join(dir, 'config.db')}`, SECRET_KEY_FILE: join(dir, 'secret.key'), TOKEN_KEY_FILE: join(dir, 'token.key'), LOG_LEVEL: 'info' };
  await (await startService(env, 1, main, { readyWhen: 'healthz', logFile: join(dir, 'log') })).stop();
  seedServers(join(dir, 'config.db'), 10000);
  mkdirSync(join(dir, 'prof'));
  services[name] = await startService(env, 1, main, { readyWhen: 'healthz', logFile: join(dir, 'log'), execArgv: ['--cpu-prof', '--cpu-prof-dir', join(dir, 'prof'), '--cpu-prof-interval', '500'] });
}
const requests: Record<string, number> = { current: 0, base: 0 };
for (let round = 0; round < 4; round++) for (const name of Object.keys(builds)) {
  const r = await runWrk(services[name]!.url, { method: 'POST', path: '/en/api/config/servers', body: `{"ip":"172.16.{{math.floor(n / 256) % 256}}.{{n % 256}}","port":{{20000 + math.floor(n / 65536) % 40000}},"hostname":"bench-{{n}}"}` }, 4);
  requests[name]! += r.requests;
  console.log(name, Math.round(r.requestsPerSecond));
}
for (const name of Object.keys(builds)) { await services[name]!.stop(); console.log(name, requests[name], join(dirs[name]!, 'prof')); }
