// Builds the application: plugins first, then routes (the layout of fastify/demo). Everything
// the routes serve comes from the registry it is given: the contract's resources, unless a
// test (or a fork) adds its own, with the migrations that create their tables.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config/config.js';
import type { Migration } from './db/migrations/ddl.js';
import type { PipelineContext } from './http/routes/endpoint-route.js';
import { HeavyWorkGate } from './pipeline/heavy-work-gate.js';
import { monitoringResources } from './pipeline/monitoring-query.js';
import { ReadThroughStore } from './pipeline/read-through-store.js';
import { isSafeRequestId } from './pipeline/request-id.js';
import { DEFAULT_REGISTRY, type Registry } from './registry/registry.js';
import { serializeError } from './logging/error-serializer.js';
import { RequestLogController } from './logging/request-log-controller.js';
import { requestLogger } from './logging/request-logger.js';
import { turnBatchedStdout, type LineDestination } from './logging/turn-batched-stdout.js';
import apiTokensPlugin from './http/plugins/api-tokens.js';
import changeFeedPlugin from './http/plugins/change-feed.js';
import webhooksPlugin from './http/plugins/webhooks.js';
import authenticationPlugin from './http/plugins/authentication.js';
import authorizationPlugin from './http/plugins/authorization.js';
import databasePlugin from './http/plugins/database.js';
import jsonBodyPlugin from './http/plugins/json-body.js';
import metricsPlugin from './http/plugins/metrics.js';
import connectionDrainPlugin from './http/plugins/connection-drain.js';
import connectionLimitPlugin from './http/plugins/connection-limit.js';
import problemResponsesPlugin, { frameworkErrorHandler } from './http/plugins/problem-responses.js';
import { answerClientError } from './http/client-errors.js';
import { changeStreams } from './http/change-streams.js';
import rateLimitPlugin from './http/plugins/rate-limit.js';
import requestIdPlugin from './http/plugins/request-id.js';
import requestLanguagePlugin from './http/plugins/request-language.js';
import secretBoxPlugin from './http/plugins/secret-box.js';
import applyRoutes from './http/routes/apply.js';
import changeRoutes from './http/routes/changes.js';
import configApiRoutes from './http/routes/config-api.js';
import consoleRoutes from './http/routes/console.js';
import docsRoutes from './http/routes/docs.js';
import healthRoutes from './http/routes/health.js';
import integrationRoutes from './http/routes/integrations.js';
import configExportRoutes from './http/routes/config-export.js';
import metricsRoutes from './http/routes/metrics.js';
import openApiRoutes from './http/routes/openapi.js';
import tokenRoutes from './http/routes/tokens.js';
import { refuseRoutesOutsideFactories } from './http/routes/route-factories.js';
import webhookRoutes from './http/routes/webhooks.js';


declare module 'fastify' {
  interface FastifyInstance {
    /** The resources this app serves. */
    registry: Registry;
    /** Where its log lines go (the metrics read how many were dropped). */
    logLines: LineDestination;
  }
}

export interface AppOptions {
  registry?: Registry;
  /** Every migration, in order; the service's own by default. */
  migrations?: Readonly<Record<string, Migration>>;
  /** Where the log lines go: standard output by default. The tests run several apps in their
   * own process and keep each app's lines apart, in memory. */
  logDestination?: LineDestination;
  /** How often the webhooks' held deliveries are looked at for the retry window's end (a
   * minute). No setting: only the tests, which cannot wait a minute, make it shorter. */
  webhookExpireHeldEveryMs?: number;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const logLines = options.logDestination ?? turnBatchedStdout(process.stdout, config.logBufferBytes);
  const app = Fastify({
    logger: {
      level: config.logLevel,
      stream: logLines,
      // Belt and braces: no credential or body is ever serialized into a log line.
      // err.rawPacket: the bytes Node's parser read of a request it refused (headers and body).
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.body', 'body', 'err.rawPacket'], censor: '[redacted]' },
      serializers: {
        // The path, never the query string: a value pasted into a URL by mistake (a key, a
        // token) must not reach the logs.
        req: (request) => ({
          method: request.method,
          url: request.url.split('?', 1)[0],
          remoteAddress: request.ip,
        }),
        // An error's cause, never the text a client sent that it may quote (a 500's line).
        err: serializeError,
      },
    },
    logController: new RequestLogController(logLines),
    childLoggerFactory: requestLogger,
    // A request that reaches an open connection while stopping is served (with Connection:
    // close) rather than refused with Fastify's own 503 body, which is not problem+json.
    return503OnClosing: false,
    // The database plugin waits for the database as long as DATABASE_CONNECT_TIMEOUT_MS says,
    // then stops the start with a sentence that says what is wrong; Fastify's own limit on a
    // plugin (10 s) would cut that short with a stack trace instead.
    pluginTimeout: 0,
    bodyLimit: config.bodyLimit,
    // Slow or stuck clients must not hold connections for ever.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionTimeout: config.requestTimeoutMs + config.keepAliveTimeoutMs,
    // Node checks the header and request time-outs on this beat (30 s by default, which
    // would let a slow client hold a connection far past its time-out).
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    genReqId: (request) => {
      const sent = request.headers['x-request-id'];
      return isSafeRequestId(sent) ? sent : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors: frameworkErrorHandler(config.bodyLimit),
    // What Node's HTTP parser refuses: problem+json too, and no raw request in the log.
    clientErrorHandler(this: FastifyInstance, error, socket) {
      answerClientError(this.log, error, socket);
    },
    // Whether X-Forwarded-For gives request.ip (allowed_ips, rate limit): TRUST_PROXY, off by default.
    trustProxy: config.trustProxy,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
  });

  app.decorate('logLines', logLines);
  try {
    await registerAll(app, config, options);
  } catch (error) {
    // What started before the failure (the database, its checkpoint thread) must not keep a
    // process that builds apps (the tests) alive; a process that exits loses nothing here.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

async function registerAll(app: FastifyInstance, config: Config, options: AppOptions): Promise<void> {
  const registry = options.registry ?? DEFAULT_REGISTRY;
  app.decorate('registry', registry);
  app.decorateRequest('routeFacts', null);
  // Before any plugin: a route made outside endpointRoute and probeRoute stops the start.
  refuseRoutesOutsideFactories(app);
  await app.register(requestLanguagePlugin);
  await app.register(requestIdPlugin);
  await app.register(problemResponsesPlugin, { bodyLimit: config.bodyLimit });
  // Before access checks: a client turned away past MAX_CONNECTIONS costs nothing more.
  await app.register(connectionLimitPlugin, { maxConnections: config.maxConnections });
  // Half the grace period to take in the connections already queued, half to answer them.
  await app.register(connectionDrainPlugin, { acceptDrainMs: config.shutdownGraceMs / 2 });
  // Identify the caller, count it against its budget, then decide: in this order.
  await app.register(authenticationPlugin, { config });
  await app.register(rateLimitPlugin, { perMinute: config.rateLimitPerMinute });
  await app.register(authorizationPlugin, { host: config.host });
  await app.register(jsonBodyPlugin);
  await app.register(secretBoxPlugin, { config });
  await app.register(databasePlugin, { config, registry, ...(options.migrations === undefined ? {} : { migrations: options.migrations }) });
  await app.register(apiTokensPlugin, { config });
  await app.register(changeFeedPlugin, { config });
  await app.register(webhooksPlugin, { config, expireHeldEveryMs: options.webhookExpireHeldEveryMs });
  await app.register(metricsPlugin);

  app.decorateRequest('target', null);
  // One gate for every heavy answer: lists, bulk writes and the monitoring integrations'
  // streamed answers share its slots, so that concurrent scrapes cannot add up past the bound.
  const heavyWork = new HeavyWorkGate({
    concurrency: config.heavyQueryConcurrency,
    queue: config.heavyQueryQueue,
    waitMs: config.heavyQueryWaitMs,
    reportRefused: (refused) => app.log.warn({ refused, concurrency: config.heavyQueryConcurrency, queue: config.heavyQueryQueue }, 'heavy requests refused 503: more at once than HEAVY_QUERY_CONCURRENCY and HEAVY_QUERY_QUEUE allow'),
  });
  // One context for every endpoint the pipeline answers.
  const context: PipelineContext = {
    registry: app.registry,
    store: app.store,
    cached: new ReadThroughStore(app.store, app.entryCache, app.listCache),
    readOnly: app.readOnly,
    heavyWork,
    tokens: { sync: app.tokens, digester: app.tokenDigester, environmentNames: app.tokenIndex.environmentNames },
    webhooks: { store: app.webhookStore, deliveries: app.webhookDeliveryRecords, dispatcher: app.webhookDispatcher, guard: app.webhookGuard },
    // Throws, stopping the start, when the registry lacks a resource the integrations read.
    monitoring: monitoringResources(app.registry),
    changeStreams: changeStreams(app, {
      keepAliveMs: config.changesKeepAliveMs,
      perToken: config.changeStreamsPerToken,
      perAddress: config.changeStreamsPerAddress,
      maxConnections: config.maxConnections,
      bufferBytes: config.changeStreamBufferBytes,
    }),
  };
  await app.register(configApiRoutes, { context });
  await app.register(changeRoutes, { context });
  await app.register(integrationRoutes, { context });
  await app.register(configExportRoutes, { context });
  await app.register(applyRoutes, { context, bodyLimit: config.applyBodyLimit });
  await app.register(tokenRoutes, { context });
  await app.register(webhookRoutes, { context });
  await app.register(openApiRoutes);
  await app.register(docsRoutes);
  await app.register(consoleRoutes);
  await app.register(healthRoutes);
  await app.register(metricsRoutes);
}
