// One log line per completed request — route pattern, method, status, duration, and the actor
// (the name of the caller's token, or `anonymous`) — with the request id the child logger
// carries (reqId). Nothing else about the request is written: no body, no query string, no
// header, so that no credential can reach the logs.
import { hostname } from 'node:os';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { ANONYMOUS } from '../auth/caller.js';
import { routeFacts, routeLabel } from '../http/route-label.js';
import { RequestLogger, writesAt } from './request-logger.js';
import type { LineDestination } from './turn-batched-stdout.js';

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
  /** The logger whose bindings `bindingsText` holds, as pino writes them (`,"pid":…,"hostname":…`). */
  private bindingsOf: FastifyBaseLogger | undefined;
  private bindingsText = '';

  /** `lines`: the logger's destination, where the completion line is written directly. */
  constructor(private readonly lines?: LineDestination) {
    super();
  }

  override incomingRequest(request: FastifyRequest): void {
    // At debug only: a request that never completes (a crash) can then still be traced.
    // The line's object is not made for a level that drops it: this runs on every request.
    const { log } = request;
    if (writesAt(log, 'debug')) log.debug({ route: routeLabel(request), method: request.method }, 'request received');
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
    if (parent === undefined) log[level](describe(request, reply), 'request completed');
    // Not even the line's object for a level the logger drops (LOG_LEVEL=warn): this runs on every request.
    else if (!writesAt(parent, level)) return;
    else if (level === 'info' && this.lines !== undefined) this.lines.write(this.completionLine(parent, request, reply));
    else parent[level](describeWithId(request, reply), 'request completed');
  }

  /**
   * The line pino writes for describeWithId's object at info, byte for byte, formed here: pino
   * forms a line with a walk over its object that asks, for every key, for a serializer, a
   * redaction and a stringifier, a few microseconds that are a large part of what a request
   * served from memory costs. This line's keys and their types are fixed; the service's logger
   * has no formatter, mixin or message prefix that pino would apply to it, and
   * test/request-log-line.test.ts compares the two lines.
   */
  private completionLine(parent: FastifyBaseLogger, request: FastifyRequest, reply: FastifyReply): string {
    if (parent !== this.bindingsOf) {
      this.bindingsOf = parent;
      // pino's base (pid and hostname, which its bindings() leaves out), then the logger's
      // own bindings (Fastify's logger type leaves bindings() out too).
      const { bindings } = parent as unknown as { bindings(): Record<string, unknown> };
      const own = Object.entries(bindings.call(parent)).map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`);
      this.bindingsText = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}${own.join('')}`;
    }
    // The fields stated once, in describeWithId: a flat object of strings and numbers, which
    // JSON.stringify writes as pino does.
    return `{"level":30,"time":${Date.now()}${this.bindingsText},${JSON.stringify(describeWithId(request, reply)).slice(1, -1)},"msg":"request completed"}\n`;
  }
}
