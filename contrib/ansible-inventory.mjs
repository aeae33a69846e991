#!/usr/bin/env node
// Ansible dynamic inventory from the configuration API (docs/integrations.md):
//
//   CONFIG_API_URL=https://config.example:8080 CONFIG_API_TOKEN=cfg_… \
//     ansible-inventory -i contrib/ansible-inventory.mjs --graph
//
// `--list` prints `GET /en/api/inventory/ansible` as it is (groups client_…, env_… and tag_…,
// and every host's variables in `_meta.hostvars`, so Ansible never calls `--host`);
// `--host NAME` prints that host's variables. CONFIG_API_URL is the service's base URL (a
// path prefix is kept); CONFIG_API_TOKEN is a read token, optional for a service without
// tokens; CONFIG_API_QUERY narrows the inventory with the server list's filters
// (e.g. `id_environment=1&tag=3`). Node's built-ins only: the script runs wherever Node 20
// does, with nothing installed beside it.
import process from 'node:process';

const USAGE = 'usage: ansible-inventory.mjs --list | --host <name>';

function fail(text) {
  process.stderr.write(`ansible-inventory.mjs: ${text}\n`);
  process.exit(1);
}

async function inventory() {
  const base = process.env.CONFIG_API_URL;
  if (base === undefined || base === '') fail('CONFIG_API_URL is not set (the configuration API, e.g. http://127.0.0.1:8080)');
  const query = process.env.CONFIG_API_QUERY ?? '';
  const url = `${base.replace(/\/+$/, '')}/en/api/inventory/ansible${query === '' ? '' : `?${query.replace(/^\?/, '')}`}`;
  const headers = { accept: 'application/json' };
  const token = process.env.CONFIG_API_TOKEN;
  if (token !== undefined && token !== '') headers.authorization = `Bearer ${token}`;
  const signal = AbortSignal.timeout(Number(process.env.CONFIG_API_TIMEOUT_MS ?? 60_000));
  let response;
  let text;
  for (;;) {
    try {
      response = await fetch(url, { headers, signal });
      text = await response.text();
    } catch (error) {
      fail(`cannot reach ${url}: ${error.cause?.message ?? error.message}`);
    }
    // Busy with other heavy answers (a scrape, another inventory): it says when to ask again.
    // Asked again until CONFIG_API_TIMEOUT_MS is spent.
    const wait = Number(response.headers.get('retry-after'));
    if (response.status !== 503 || !(wait > 0)) break;
    await new Promise((done) => setTimeout(done, wait * 1000));
    if (signal.aborted) break;
  }
  if (response.status !== 200) {
    // The service's errors are problem+json: its detail says what is wrong (never the token).
    let detail = text.slice(0, 500);
    try {
      const problem = JSON.parse(text);
      detail = `${problem.code ?? ''} ${problem.detail ?? problem.title ?? ''}`.trim();
    } catch {}
    fail(`${url} answered ${response.status}: ${detail}`);
  }
  return text;
}

const [option, name] = process.argv.slice(2);
if (option === '--list') {
  // Passed on as received: the service already wrote it as Ansible reads it.
  process.stdout.write(await inventory());
} else if (option === '--host' && name !== undefined) {
  const hostvars = JSON.parse(await inventory())._meta?.hostvars ?? {};
  process.stdout.write(JSON.stringify(Object.hasOwn(hostvars, name) ? hostvars[name] : {}));
} else {
  fail(USAGE);
}
