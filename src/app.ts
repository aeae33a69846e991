// Builds the application: plugins first, then routes (the layout of fastify/demo).
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { RequestLogController } from './logging/request-log-controller.js';
import { turnBatchedStdout } from './logging/turn-batched-stdout.js';
import authenticationPlugin from './plugins/authentication.js';
import databasePlugin from './plugins/database.js';
import jsonBodyPlugin from './plugins/json-body.js';
import metricsPlugin from './plugins/metrics.js';
import connectionDrainPlugin from './plugins/connection-drain.js';
import problemResponsesPlugin, { frameworkErrorHandler } from './plugins/problem-responses.js';
import rateLimitPlugin from './plugins/rate-limit.js';
import requestIdPlugin from './plugins/request-id.js';
import requestLanguagePlugin from './plugins/request-language.js';
import secretBoxPlugin from './plugins/secret-box.js';
import configApiRoutes from './routes/config-api.js';
import docsRoutes from './routes/docs.js';
import healthRoutes from './routes/health.js';
import metricsRoutes from './routes/metrics.js';
import openApiRoutes from './routes/openapi.js';

// A caller's request id is kept only if it cannot smuggle anything into a log line.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(config: Config): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      stream: turnBatchedStdout(),
      // Belt and braces: no credential or body is ever serialized into a log line.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.body', 'body'], censor: '[redacted]' },
      serializers: {
        // The path, never the query string: a value pasted into a URL by mistake (a key, a
        // token) must not reach the logs.
        req: (request) => ({
          method: request.method,
          url: request.url.split('?', 1)[0],
          remoteAddress: request.ip,
        }),
      },
    },
    logController: new RequestLogController(),
    // A request that reaches an open connection while stopping is served (with Connection:
    // close) rather than refused with Fastify's own 503 body, which is not problem+json.
    return503OnClosing: false,
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
      return typeof sent === 'string' && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors: frameworkErrorHandler(config.bodyLimit),
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
  });

  app.decorateRequest('routeFacts', null);
  await app.register(requestLanguagePlugin);
  await app.register(requestIdPlugin);
  await app.register(connectionDrainPlugin);
  app.server.maxConnections = config.maxConnections;

  await app.register(problemResponsesPlugin, { bodyLimit: config.bodyLimit });
  await app.register(rateLimitPlugin, { perMinute: config.rateLimitPerMinute, tokens: config.apiTokens });
  await app.register(authenticationPlugin, { tokens: config.apiTokens });
  await app.register(jsonBodyPlugin);
  await app.register(secretBoxPlugin, { config });
  await app.register(databasePlugin, { config });
  await app.register(metricsPlugin);

  app.decorateRequest('target', null);
  await app.register(configApiRoutes);
  await app.register(openApiRoutes);
  await app.register(docsRoutes);
  await app.register(healthRoutes);
  await app.register(metricsRoutes);
  return app;
}
