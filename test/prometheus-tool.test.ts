// Contract section 17 with the real Prometheus: its own `http_sd_configs`, with an
// `authorization` bearer token, reads the service's discovery unchanged. A Prometheus of its
// own (temporary configuration and storage, a loopback port, a 1 s refresh) discovers every
// monitored server with its labels, follows a delete, an unmonitored server and a new tag,
// and fails its discovery once its token is revoked. The scrape job of docs/integrations.md
// (mysqld_exporter's multi-target style) is checked for the labels it makes.
// Targets are on loopback (127.0.0.x, ports nothing listens on) and the scrape interval is an
// hour: Prometheus never knocks anywhere but this machine, and hardly at all.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort } from './support/free-port.js';
import { ADMIN, SD, TOKEN_ENV, makeFleet, monitored, type Fleet } from './support/monitoring-fleet.js';
import { tool } from './support/real-tools.js';
import { serverPerSuite } from './support/server.js';
import { bearer } from './support/tokens.js';
import { until } from './support/until.js';

const prometheus = tool('prometheus', 'prometheus');
const server = serverPerSuite({ env: TOKEN_ENV });
const REFRESH_S = 1;
// Prometheus's discovery manager hands new targets to its scrape manager at most every 5 s
// (discovery/manager.go, updatert): what /api/v1/targets shows may lag the discovery that much.
const FOLLOW_MS = 2 * REFRESH_S * 1000 + 5000 + 2000;
const EXPORTER = '127.0.0.1:9';
let fleet: Fleet;
let child: ChildProcess | undefined;
let dir = '';
let web = '';

// `type: Bearer` is Prometheus's default, but Debian's Prometheus 2.42 sends the credentials of
// an http_sd_configs without it, scheme-less (seen on this machine): the docs say to write it.
function configuration(serviceUrl: string, token: string): string {
  const sd = `    http_sd_configs:\n      - url: ${serviceUrl}${SD}\n        refresh_interval: ${REFRESH_S}s\n        authorization:\n          type: Bearer\n          credentials: ${token}\n`;
  return (
    'global:\n  scrape_interval: 1h\n  scrape_timeout: 5s\nscrape_configs:\n' +
    `  - job_name: servers\n${sd}` +
    // The mysqld_exporter job of docs/integrations.md: the server becomes the `target` parameter
    // and the instance label, the exporter the address scraped.
    `  - job_name: mysqld\n    metrics_path: /probe\n${sd}` +
    '    relabel_configs:\n' +
    '      - source_labels: [__address__]\n        target_label: __param_target\n' +
    '      - source_labels: [__param_target]\n        target_label: instance\n' +
    `      - target_label: __address__\n        replacement: ${EXPORTER}\n` +
    '      - source_labels: [__meta_pmacontrol_client]\n        target_label: client\n' +
    '      - source_labels: [__meta_pmacontrol_environment]\n        target_label: environment\n'
  );
}

interface Target {
  discoveredLabels: Record<string, string>;
  labels: Record<string, string>;
  scrapePool: string;
  scrapeUrl: string;
}

async function targets(pool: string): Promise<Target[]> {
  const response = await fetch(`${web}/api/v1/targets?state=active`);
  const body = (await response.json()) as { data: { activeTargets: Target[] } };
  return body.data.activeTargets.filter((target) => target.scrapePool === pool);
}

async function sdFailures(): Promise<number> {
  const text = await (await fetch(`${web}/metrics`)).text();
  return [...text.matchAll(/^prometheus_sd_http_failures_total(?:\{[^}]*\})? (\S+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

const byId = (list: Target[]) => list.map((target) => Number(target.discoveredLabels.__meta_pmacontrol_server_id)).sort((a, b) => a - b);

describe('Prometheus reads the service discovery with its own http_sd_configs', { skip: prometheus.skip }, () => {
  before(async () => {
    assert.ok(prometheus.available, 'prometheus is required (CI=true) but not found on PATH');
    fleet = await makeFleet(server);
    dir = mkdtempSync(join(tmpdir(), 'config-api-prometheus-'));
    writeFileSync(join(dir, 'prometheus.yml'), configuration(server.url, fleet.read.token));
    web = `http://127.0.0.1:${await freePort()}`;
    child = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=${web.slice('http://'.length)}`, '--log.level=warn'], {
      stdio: 'ignore',
    });
    await until('Prometheus ready', async () => (await fetch(`${web}/-/ready`).catch(() => undefined))?.status === 200, 30_000, 200);
  });

  after(async () => {
    if (child !== undefined && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((done) => child!.once('exit', done));
    }
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  test('every monitored server is discovered with the labels the service gives', async () => {
    const expected = monitored(fleet).map((entry) => entry.id).sort((a, b) => a - b);
    await until('every monitored server discovered', async () => JSON.stringify(byId(await targets('servers'))) === JSON.stringify(expected), FOLLOW_MS + 10_000, 250);
    const answer = (await server.request('GET', SD, { headers: bearer(fleet.read.token) })).body as { targets: string[]; labels: Record<string, string> }[];
    const found = await targets('servers');
    for (const group of answer) {
      const target = found.find((candidate) => candidate.discoveredLabels.__meta_pmacontrol_server_id === group.labels.__meta_pmacontrol_server_id)!;
      assert.equal(target.discoveredLabels.__address__, group.targets[0]);
      // To Prometheus an empty label value is no label: it shows none.
      for (const [name, value] of Object.entries(group.labels)) assert.equal(target.discoveredLabels[name] ?? '', value, name);
      const shown = Object.keys(target.discoveredLabels).filter((name) => name.startsWith('__meta_pmacontrol_'));
      assert.deepEqual(shown.sort(), Object.keys(group.labels).filter((name) => group.labels[name] !== '').sort());
    }
  });

  test('the mysqld_exporter job of the docs: the server is the target parameter and the instance, the exporter is scraped', async () => {
    await until('the mysqld job discovered', async () => (await targets('mysqld')).length === monitored(fleet).length, FOLLOW_MS, 250);
    const a = (await targets('mysqld')).find((target) => target.discoveredLabels.__meta_pmacontrol_hostname === 'db-a')!;
    assert.equal(a.labels.instance, '127.0.0.11:23306');
    assert.equal(a.labels.client, 'ACME Inc.');
    assert.equal(a.labels.environment, 'prod');
    assert.equal(a.scrapeUrl, `http://${EXPORTER}/probe?target=127.0.0.11%3A23306`);
  });

  test('Prometheus follows a soft delete, an unmonitored server and a new tag within two refreshes (and its 5 s hand-over)', async () => {
    const { a, twin1, twin2 } = fleet.servers;
    const started = Date.now();
    for (const [method, path, body] of [
      ['DELETE', `/en/api/config/servers/${twin1.id}`, undefined],
      ['PATCH', `/en/api/config/servers/${twin2.id}`, { is_monitored: false }],
      ['PATCH', `/en/api/config/servers/${a.id}`, { add_tags: [fleet.tags.backup] }],
    ] as const) {
      const reply = await server.request(method, path, { headers: bearer(ADMIN), ...(body === undefined ? {} : { body }) });
      assert.equal(reply.status, 200, reply.text);
    }
    const expected = monitored(fleet).map((entry) => entry.id).filter((id) => id !== twin1.id && id !== twin2.id).sort((a, b) => a - b);
    await until(
      'Prometheus following the changes',
      async () => {
        const found = await targets('servers');
        const tagged = found.find((target) => target.discoveredLabels.__meta_pmacontrol_server_id === String(a.id));
        return JSON.stringify(byId(found)) === JSON.stringify(expected) && tagged?.discoveredLabels.__meta_pmacontrol_tag_backup === 'true';
      },
      FOLLOW_MS,
      100,
    );
    const tagged = (await targets('servers')).find((target) => target.discoveredLabels.__meta_pmacontrol_server_id === String(a.id))!;
    assert.equal(tagged.discoveredLabels.__meta_pmacontrol_tags, ',galera cluster,ünï-code,backup,');
    assert.ok(Date.now() - started <= FOLLOW_MS);
  });

  test('with its token revoked, its discovery fails: the service answers it 401', async () => {
    const failures = await sdFailures();
    const revoked = await server.request('DELETE', `/en/api/tokens/${fleet.read.id}`, { headers: bearer(ADMIN) });
    assert.equal(revoked.status, 200, revoked.text);
    await until('Prometheus counting failed discoveries', async () => (await sdFailures()) > failures, 4 * REFRESH_S * 1000 + 2000, 200);
    const refusals = server.logs().split('\n').filter((line) => line.includes('"route":"/:lang/api/sd/prometheus"') && line.includes('"status":401'));
    assert.ok(refusals.length > 0, 'the service refused Prometheus with 401');
  });
});
