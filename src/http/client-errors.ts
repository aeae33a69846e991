// Requests Node's HTTP parser refuses before Fastify sees them (a malformed request line or
// header, an unknown method, headers over the limit, a time-out): answered like every other
// error, problem+json with a code, instead of Fastify's plain JSON. Nothing of the request is
// logged: Node hands over the raw bytes it read (`rawPacket`), an Authorization header and a
// body included, which Fastify's own handler wrote to the log at trace level.
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { apiError, problemBody, type ApiError } from '../errors/api-error.js';
import { languageOfUrl } from '../messages/languages.js';

interface ParserError extends Error {
  code?: string;
  rawPacket?: unknown;
}

function problemOf(code: string | undefined): ApiError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return apiError('REQUEST_TIMEOUT', 'request.timeout');
    case 'HPE_HEADER_OVERFLOW':
      return apiError('HEADERS_TOO_LARGE', 'request.headersTooLarge');
    case 'HPE_INVALID_METHOD':
      return apiError('NOT_IMPLEMENTED', 'method.unknown');
    default:
      return apiError('BAD_REQUEST', 'request.malformed');
  }
}

/** The path of the request line, read only to answer in its language (`/fr/…`). */
function pathOf(rawPacket: unknown): string {
  const line = Buffer.isBuffer(rawPacket) ? rawPacket.toString('latin1', 0, Math.min(rawPacket.length, 256)) : '';
  return /^[!-~]+ (\/[^ ?]*)/.exec(line)?.[1] ?? '/';
}

/** What Fastify's `clientErrorHandler` does. */
export function answerClientError(log: FastifyBaseLogger, error: ParserError, socket: Socket): void {
  // A reset connection has nothing left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem = problemOf(error.code);
  log.debug({ parserError: error.code ?? error.name, status: problem.status }, 'client error');
  // As Node does: no answer once a response on this connection has begun.
  const inProgress = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inProgress?.headersSent === true) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(problemBody(problem, languageOfUrl(pathOf(error.rawPacket))));
  const title = problemBody(problem, 'en').title;
  socket.end(
    `HTTP/1.1 ${problem.status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // Once the answer is out, the rest of what the client sends is not read.
  socket.once('finish', () => socket.destroy());
}
