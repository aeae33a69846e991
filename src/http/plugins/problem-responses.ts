// The one error path: whatever is thrown becomes the problem+json body of the contract.
// Errors that come from Fastify are first translated into an ApiError (driver errors were
// translated by the route factory, pipeline/database-errors.ts); anything else is a 500 whose body never carries the cause
// (stack, SQL), which goes to the log only.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, apiError, problemBody } from '../../errors/api-error.js';
import { languageOfUrl } from '../../messages/languages.js';

function translate(error: FastifyError, bodyLimit: number): ApiError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return apiError('PAYLOAD_TOO_LARGE', 'body.tooLarge', { limit: bodyLimit });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return apiError('UNSUPPORTED_MEDIA_TYPE', 'body.mediaType');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return apiError('MALFORMED_JSON', 'body.empty');
    // The router refuses a path segment it cannot even read (over-long, bad %-encoding):
    // no entry lives there.
    case 'FST_ERR_MAX_PARAM_LENGTH':
    case 'FST_ERR_BAD_URL':
      return apiError('NOT_FOUND', 'path.unknown');
    default:
      break;
  }
  if (error.statusCode === 404) return apiError('NOT_FOUND', 'path.unknown');
  if (error.statusCode === 413) return apiError('PAYLOAD_TOO_LARGE', 'body.tooLarge', { limit: bodyLimit });
  if (error.statusCode === 415) return apiError('UNSUPPORTED_MEDIA_TYPE', 'body.mediaType');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return apiError('MALFORMED_JSON', 'body.malformed');
  }
  return apiError('INTERNAL_ERROR', 'server.internal');
}

/** For Fastify's `frameworkErrors`: errors raised before any hook, answered the same way. */
export function frameworkErrorHandler(bodyLimit: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const problem = translate(error, bodyLimit);
    // No 5xx without a line that names its cause, here as in the error handler below.
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    void sendProblem(request, reply, problem);
  };
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/problem+json; charset=utf-8')
    // Undefined on the requests Fastify makes for its own framework errors (no decorators).
    .send(JSON.stringify(problemBody(error, request.language ?? languageOfUrl(request.url))));
}

export default fp<{ bodyLimit: number }>(
  async (app, { bodyLimit }) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      // A route may take larger bodies than the rest (an apply's document).
      const problem = error instanceof ApiError ? error : translate(error, request.routeOptions.bodyLimit ?? bodyLimit);
      // Heavy requests turned away under load are counted in one line a second by the gate
      // (pipeline/heavy-work-gate.ts), not logged one by one as failures.
      if (problem.status >= 500 && problem.detail.key !== 'heavy.busy') request.log.error({ err: error }, 'request failed');
      return sendProblem(request, reply, problem);
    });
    app.setNotFoundHandler((request, reply) => sendProblem(request, reply, apiError('NOT_FOUND', 'path.unknown')));
  },
  { name: 'problem-responses', dependencies: ['request-language'] },
);
