// The one error type of the service. Whatever goes wrong ends as an ApiError, and the
// error handler turns it into the problem+json body of the contract (section 6).
import { STATUS_CODES } from 'node:http';
import type { MessageLanguage } from '../messages/languages.js';
import { message, render, type Message, type MessageKey, type MessageParams } from '../messages/messages.js';

/** The status of every code: the one place it is stated (the document reads it from here). */
export const STATUS_OF = {
  MALFORMED_JSON: 400,
  BAD_QUERY: 400,
  // Refused by Node's HTTP parser, before any route: the request itself cannot be read.
  BAD_REQUEST: 400,
  // A webhook URL whose host resolves to an address webhooks may not reach (section 16).
  URL_REFUSED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  // The headers or the body did not arrive within the time-outs.
  REQUEST_TIMEOUT: 408,
  DELETE_GUARDED: 409,
  REFERENCED: 409,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  RATE_LIMITED: 429,
  // Change streams: the token or the client address already holds as many as it may.
  TOO_MANY_STREAMS: 429,
  // The request line and headers are over Node's limit (16 KiB).
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  // A method Node's HTTP parser does not know (RFC 9110: 501 for a method not recognized on any
  // resource; 405 would owe an Allow header for a path not even read).
  NOT_IMPLEMENTED: 501,
  UNAVAILABLE: 503,
  // The database refuses writes: READ_ONLY=true, or a read-only file, standby or grant.
  READ_ONLY: 503,
  // The database's disk is full (RFC 4918's status: the server cannot store what is needed).
  INSUFFICIENT_STORAGE: 507,
} as const satisfies Readonly<Record<string, number>>;

export type ErrorCode = keyof typeof STATUS_OF;

/** Every code, in the order of their statuses. */
export const ERROR_CODES = Object.keys(STATUS_OF) as ErrorCode[];

// RFC 9110 renamed these two; Node still uses the older names.
const TITLES: Record<number, string> = { 413: 'Content Too Large', 422: 'Unprocessable Content' };

export interface FieldProblem {
  field: string;
  message: Message;
  /** The position of the entry in a bulk request's array. */
  index?: number;
  /** The place in a configuration document (an apply), e.g. `servers[12].ip`. */
  at?: string;
}

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: Message,
    readonly fieldProblems: readonly FieldProblem[] = [],
    readonly headers: Readonly<Record<string, string>> = {},
    /** Extra members of the problem body (RFC 9457 extensions). */
    readonly extensions: Readonly<Record<string, unknown>> = {},
    /** What went wrong underneath (a driver error): logged with a 5xx, never shown to the client. */
    cause?: unknown,
  ) {
    super(`${code}: ${detail.key}`, cause === undefined ? undefined : { cause });
    this.name = 'ApiError';
    this.status = STATUS_OF[code];
  }
}

export function apiError(code: ErrorCode, key: MessageKey, params?: MessageParams): ApiError {
  return new ApiError(code, message(key, params));
}

/** An ApiError that stands for `cause` (a driver error): the log line of a 5xx names it. */
export function apiErrorCausedBy(cause: unknown, code: ErrorCode, key: MessageKey): ApiError {
  return new ApiError(code, message(key), [], {}, {}, cause);
}

export function fieldProblem(field: string, key: MessageKey, params?: MessageParams): FieldProblem {
  return { field, message: message(key, params) };
}

/** 405 with the `Allow` header: the one answer to a method a path does not serve. The body
 * also lists them in `allowed`, which the older API's clients read. */
export function methodNotAllowed(method: string, allowed: readonly string[]): ApiError {
  const allow = allowed.join(', ');
  return new ApiError('METHOD_NOT_ALLOWED', message('method.notAllowed', { method, allow }), [], { allow }, { allowed: [...allowed] });
}

/** 404 of an entry: the body carries `"item": null`, as the older API's did. */
export function entryNotFound(resource: string, id: number | string): ApiError {
  return new ApiError('NOT_FOUND', message('entry.notFound', { id, resource }), [], {}, { item: null });
}

/** The same refusal, about the entry at `index` of a bulk request: every field problem names
 * it, and a refusal without one gets one (field `id`) that says why. */
export function aboutEntry(error: ApiError, index: number): ApiError {
  const problems = error.fieldProblems.length > 0 ? error.fieldProblems : [{ field: 'id', message: error.detail }];
  const { item: _item, ...extensions } = error.extensions;
  return new ApiError(error.code, error.detail, problems.map((problem) => ({ ...problem, index })), error.headers, extensions);
}

export function validationFailed(problems: readonly FieldProblem[]): ApiError {
  return new ApiError('VALIDATION_FAILED', message('body.invalid', { count: problems.length }), problems);
}

export interface ProblemBody {
  type: 'about:blank';
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  error: string;
  errors?: { field: string; message: string; index?: number; at?: string }[];
  [extension: string]: unknown;
}

export function problemBody(error: ApiError, language: MessageLanguage): ProblemBody {
  const detail = render(error.detail, language);
  const body: ProblemBody = {
    type: 'about:blank',
    title: TITLES[error.status] ?? STATUS_CODES[error.status] ?? 'Error',
    status: error.status,
    code: error.code,
    detail,
    // `error` is what clients of the older PHP API read.
    error: detail,
    ...error.extensions,
  };
  if (error.fieldProblems.length > 0) {
    body.errors = error.fieldProblems.map((p) => ({
      field: p.field,
      message: render(p.message, language),
      ...(p.index === undefined ? {} : { index: p.index }),
      ...(p.at === undefined ? {} : { at: p.at }),
    }));
  }
  return body;
}
