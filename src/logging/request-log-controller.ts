// One log line per completed request — route pattern, method, status, duration, and the actor
// (the name of the caller's token, or `anonymous`) — with the request id the child logger
// carries (reqId). Nothing else about the request is written: no body, no query string, no
// header, so that no credential can reach the logs.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { ANONYMOUS } from '../auth/caller.js';
import { routeFacts, routeLabel } from '../http/route-label.js';
import { RequestLogger } from './request-logger.js';

function describe(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  return {
    route: routeLabel(request),
    method: request.method,
    status: reply.statusCode,
    durationMs: Math.round(reply.elapsedTime * 100) / 100,
    // Undefined on the requests Fastify makes for its own framework errors (no decorators).
    actor: request.caller?.name ?? ANONYMOUS.name,
  };
}

/** The same, the request id first, for a logger that does not carry it (request-logger.ts). An
 * object literal of one shape: copying the fields above into a new object costs more on every
 * request than the child logger this saves. */
function describeWithId(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  return {
    // The name Fastify binds the id to in a child (its requestIdLogLabel, left as it is).
    reqId: request.id,
    route: routeLabel(request),
    method: request.method,
    status: reply.statusCode,
    durationMs: Math.round(reply.elapsedTime * 100) / 100,
    actor: request.caller?.name ?? ANONYMOUS.name,
  };
}

export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    // At debug only: a request that never completes (a crash) can then still be traced.
    // The line's object is not made for a level that drops it: this runs on every request.
    const { level } = request.log;
    if (level === 'debug' || level === 'trace') request.log.debug({ route: routeLabel(request), method: request.method }, 'request received');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error({ ...describe(request, reply), err: error }, 'request failed while responding');
      return;
    }
    // Probes are polled so often that their lines would drown the rest.
    const level = routeFacts(request).probe ? 'debug' : 'info';
    const log = reply.log;
    const parent = log instanceof RequestLogger ? log.parentWhileUnmade : undefined;
    if (parent !== undefined) parent[level](describeWithId(request, reply), 'request completed');
    else log[level](describe(request, reply), 'request completed');
  }
}
