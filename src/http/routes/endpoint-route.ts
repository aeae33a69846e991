// Every route of the API's paths serves one endpoint for all methods, so that a wrong method
// is a 405 and not a 404. The path is resolved (parse, first part) before the body is read.
// What an endpoint throws is mapped here, once for all of them: a driver error becomes the
// contract's answer (pipeline/database-errors.ts). Only this factory and probeRoute may
// register routes (route-factories.ts).
//
// The endpoints the pipeline answers (a resource's collection, items and restore, an entry's
// history, the change log, the API tokens) are handed to it by handleRequest below, which
// reads top to bottom as PostgREST's does: parse the HTTP request into an API request, plan
// it against the registry (plain data, no SQL), execute the plan (one transaction for a
// write), and respond. The route hands the pipeline the parts of the HTTP request it reads,
// and nothing more: no route does database work of its own.
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '../../errors/api-error.js';
import { asApiError } from '../../pipeline/database-errors.js';
import { execute, type ExecutionContext } from '../../pipeline/execute.js';
import { parseRequest, type HttpInput } from '../../pipeline/parse-request.js';
import { planRequest } from '../../pipeline/plan.js';
import { respond, type Outcome } from '../../pipeline/respond.js';
import { ALLOWED_METHODS, resolveTarget, TAKES_BODY, type Endpoint, type RequestTarget } from '../../pipeline/request-target.js';
import type { Registry } from '../../registry/registry.js';
import { handsToPipeline, isHandedToPipeline, madeBy } from './route-factories.js';

declare module 'fastify' {
  interface FastifyRequest {
    target: RequestTarget | null;
  }
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
// What Fastify would have said for an object body; the pipeline hands over JSON text.
const JSON_TYPE = 'application/json; charset=utf-8';

const JSON_ONLY: readonly string[] = ['application/json'];

function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase();
}

/** What an endpoint takes beyond the rule of every other: another body limit (BODY_LIMIT
 * otherwise), other media types (JSON only otherwise; each needs a parser in the route's plugin). */
export interface EndpointBody {
  readonly limit?: number;
  readonly mediaTypes?: readonly string[];
}

export function endpointRoute(
  app: FastifyInstance,
  registry: Registry,
  url: string,
  endpoint: Endpoint,
  handle: (target: RequestTarget, request: FastifyRequest, reply: FastifyReply) => Outcome | Promise<Outcome>,
  config: FastifyContextConfig = {},
  body: EndpointBody = {},
): void {
  const mediaTypes = body.mediaTypes ?? JSON_ONLY;
  const handler = madeBy('endpoint', (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | undefined => {
    let outcome: Outcome | Promise<Outcome>;
    try {
      outcome = handle(request.target!, request, reply);
    } catch (error) {
      throw asApiError(app.store, error);
    }
    if (outcome instanceof Promise || outcome.handOver !== undefined) return answerLater(request, reply, outcome);
    // An answer made without waiting (a read the caches hold) is sent in this same call: no
    // promise for Fastify to wait on, so nothing is returned.
    sendOutcome(reply, outcome);
    return undefined;
  });
  const answerLater = async (request: FastifyRequest, reply: FastifyReply, pending: Outcome | Promise<Outcome>): Promise<FastifyReply> => {
    let outcome: Outcome;
    try {
      outcome = await pending;
      // The change stream: written to the connection by hand from here (respond.ts).
      if (outcome.handOver !== undefined) {
        await outcome.handOver({ request, reply });
        return reply;
      }
    } catch (error) {
      throw asApiError(app.store, error);
    }
    return sendOutcome(reply, outcome);
  };
  if (isHandedToPipeline(handle)) handsToPipeline(handler);
  app.route({
    method: app.supportedMethods,
    url,
    config,
    ...(body.limit === undefined ? {} : { bodyLimit: body.limit }),
    // Callback style, as the plugins' hooks: no promise per request.
    onRequest: (request, reply, done) => {
      try {
        request.target = resolveTarget(registry, endpoint, request.params as Record<string, string>, request.method);
        // Checked before the body is read, so that a body in another format is a clean 415.
        if (TAKES_BODY[endpoint] && BODY_METHODS.has(request.method) && !mediaTypes.includes(mediaTypeOf(request.headers['content-type']) ?? '')) {
          throw apiError('UNSUPPORTED_MEDIA_TYPE', mediaTypes === JSON_ONLY ? 'body.mediaType' : 'body.mediaTypeDocument');
        }
      } catch (error) {
        done(error as Error);
        return;
      }
      // Answered here: the request goes no further, so done() is not called.
      if (request.method === 'OPTIONS') reply.code(204).header('allow', ALLOWED_METHODS[endpoint].join(', ')).send();
      else done();
    },
    handler,
  });
}

function sendOutcome(reply: FastifyReply, outcome: Outcome): FastifyReply {
  if (outcome.headers !== undefined) reply.headers(outcome.headers);
  reply.code(outcome.status);
  if (outcome.body !== undefined && outcome.headers?.['content-type'] === undefined) reply.type(JSON_TYPE);
  return reply.send(outcome.body);
}

export interface PipelineContext extends ExecutionContext {
  readonly registry: Registry;
}

function lastEventId(request: FastifyRequest): string | undefined {
  const header = request.headers['last-event-id'];
  return typeof header === 'string' ? header : undefined;
}

/** The parts of the HTTP request the pipeline reads. */
function httpInput(request: FastifyRequest): HttpInput {
  const { url } = request;
  const mark = url.indexOf('?');
  return {
    method: request.method,
    query: request.query as Record<string, unknown>,
    // What Fastify parsed `query` from.
    rawQuery: mark === -1 ? '' : url.slice(mark + 1),
    body: request.body,
    ifMatch: request.headers['if-match'],
    ifNoneMatch: request.headers['if-none-match'],
    accept: request.headers.accept,
    lastEventId: lastEventId(request),
    // Set by the authorization hook on every request that reaches a route.
    caller: request.caller!,
    requestId: request.id,
  };
}

/** The whole request of an endpoint the pipeline answers: parse, plan, execute, respond. A
 * driver error that escapes the execution is mapped by the route, as for every endpoint. Not
 * a promise when the execution gave its result at once (execute.ts says which). */
export function handleRequest(context: PipelineContext, target: RequestTarget, input: HttpInput): Outcome | Promise<Outcome> {
  const request = parseRequest(context.registry, target, input);
  const plan = planRequest(context.registry, request);
  const result = execute(context, plan);
  return result instanceof Promise ? result.then(respond) : respond(result);
}

/** Registers the routes of endpoints the pipeline answers, each handler marked
 * (handsToPipeline, which test/route-factories.test.ts reads); `body` for an endpoint that
 * takes another body than JSON within the common limit (the apply). */
export function pipelineRoutes(
  app: FastifyInstance,
  context: PipelineContext,
  routes: readonly (readonly [url: string, endpoint: Endpoint])[],
  config: { admin?: true } = {},
  body: EndpointBody = {},
): void {
  const handle = handsToPipeline((target: RequestTarget, request: FastifyRequest) => handleRequest(context, target, httpInput(request)));
  for (const [url, endpoint] of routes) endpointRoute(app, context.registry, url, endpoint, handle, config, body);
}
