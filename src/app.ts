// Builds the application: plugins first, then routes (the layout of fastify/demo).
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import databasePlugin from './plugins/database.js';
import jsonBodyPlugin from './plugins/json-body.js';
import problemResponsesPlugin from './plugins/problem-responses.js';
import requestIdPlugin from './plugins/request-id.js';
import requestLanguagePlugin from './plugins/request-language.js';
import secretBoxPlugin from './plugins/secret-box.js';
import configApiRoutes from './routes/config-api.js';
import openApiRoutes from './routes/openapi.js';

// A caller's request id is kept only if it cannot smuggle anything into a log line.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(config: Config): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
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
    bodyLimit: config.bodyLimit,
    genReqId: (request) => {
      const sent = request.headers['x-request-id'];
      return typeof sent === 'string' && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
  });

  await app.register(requestLanguagePlugin);
  await app.register(requestIdPlugin);
  await app.register(problemResponsesPlugin, { bodyLimit: config.bodyLimit });
  await app.register(jsonBodyPlugin);
  await app.register(secretBoxPlugin, { config });
  await app.register(databasePlugin, { config });

  app.decorateRequest('target', null);
  await app.register(configApiRoutes);
  await app.register(openApiRoutes);
  return app;
}
