// Prometheus figures of this app: requests by route pattern, method and status, their
// latency, the database pool, and the process (collectDefaultMetrics). Each app has its own
// registry, so that several apps in one process (tests) or several workers never mix.
import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { clusterMetricsSource } from '../../cluster/cluster-metrics.js';
import type { PoolStatistics } from '../../db/connect.js';
import { routeLabel } from '../route-label.js';
import { RequestMetrics } from '../../metrics/request-metrics.js';

export interface MetricsExposition {
  readonly contentType: string;
  /** The text a scrape receives: this process's figures, or the whole cluster's. */
  render(): Promise<string>;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: MetricsExposition;
  }
}

// From a read served from memory (the first bucket) to a request that waits out a database
// timeout (DATABASE_CONNECT_TIMEOUT_MS, DATABASE_QUERY_TIMEOUT_MS: the last buckets).
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function poolGauges(registry: Registry, statistics: () => PoolStatistics): void {
  const figures: [string, string, (s: PoolStatistics) => number][] = [
    ['db_pool_connections_max', 'Connections the database pool may open.', (s) => s.max],
    ['db_pool_connections_open', 'Connections the database pool holds open, busy or idle.', (s) => s.open],
    ['db_pool_connections_idle', 'Open connections waiting for a query.', (s) => s.idle],
    ['db_pool_waiting_queries', 'Queries waiting for a free connection.', (s) => s.waiting],
  ];
  for (const [name, help, pick] of figures) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(pick(statistics()));
      },
    });
  }
}

/** Webhook deliveries (contract section 16): attempts by result, and what waits. */
function webhookMetrics(registry: Registry, app: FastifyInstance): void {
  const dispatcher = app.webhookDispatcher;
  new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this process, by what they left the delivery as: succeeded, retrying or failed (given up).',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      this.reset();
      for (const result of ['succeeded', 'retrying', 'failed'] as const) this.inc({ result }, dispatcher.results[result]);
    },
  });
  new Counter({
    name: 'webhooks_auto_disabled_total',
    help: 'Webhooks this process disabled because every delivery failed for WEBHOOK_DISABLE_AFTER_HOURS.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(dispatcher.disabled);
    },
  });
  // Read from the database at each scrape; a database out of reach leaves the last figures.
  let pending: { count: number; oldest: string | null } = { count: 0, oldest: null };
  const refresh = async (): Promise<void> => {
    pending = await app.webhookDeliveryRecords.pending().catch(() => pending);
  };
  new Gauge({
    name: 'webhook_deliveries_pending',
    help: 'Webhook deliveries waiting for an attempt (pending or retrying), all instances together.',
    registers: [registry],
    // One database's figure: every worker reads the same, so the cluster's scrape shows one.
    aggregator: 'max',
    async collect() {
      await refresh();
      this.set(pending.count);
    },
  });
  new Gauge({
    name: 'webhook_oldest_pending_delivery_age_seconds',
    help: 'Age of the oldest webhook delivery waiting for an attempt; 0 when none waits.',
    registers: [registry],
    aggregator: 'max',
    async collect() {
      await refresh();
      this.set(pending.oldest === null ? 0 : Math.max(0, (Date.now() - Date.parse(pending.oldest)) / 1000));
    },
  });
}

export default fp(
  async (app) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const requests = new RequestMetrics(LATENCY_BUCKETS);
    requests.register(
      registry,
      { requests: 'http_requests_total', latency: 'http_request_duration_seconds' },
      {
        requests: 'HTTP requests answered, by route pattern, method and status.',
        latency: 'Time from receiving a request to the end of its response, by route pattern, method and status.',
      },
    );
    app.addHook('onResponse', (request, reply, done) => {
      requests.record(request.method, routeLabel(request), reply.statusCode, reply.elapsedTime / 1000);
      done();
    });

    // A log reader that stops reading costs lines, not requests (src/logging/turn-batched-stdout.ts).
    new Counter({
      name: 'log_lines_dropped_total',
      help: 'Log lines dropped because standard output was not taken fast enough (a stuck log reader) or failed.',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(app.logLines.dropped?.() ?? 0);
      },
    });

    webhookMetrics(registry, app);

    const statistics = app.database.poolStatistics;
    if (statistics !== undefined) poolGauges(registry, statistics);

    app.decorate('metrics', {
      contentType: registry.contentType,
      render: cluster.isWorker ? clusterMetricsSource(registry) : () => registry.metrics(),
    });
  },
  { name: 'metrics', dependencies: ['database', 'webhooks'] },
);
