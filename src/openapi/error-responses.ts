// The error responses of the document: one shared response per refusal, each with
// its status (read from the service's own table of codes), the codes its body may carry, and
// an example made by the function that writes the service's error bodies.
import { ERROR_CODES, STATUS_OF, type ErrorCode } from '../errors/api-error.js';
import { headerRef, ref, type DocumentContext, type JsonObject } from './document-parts.js';
import type { DocumentTexts } from './document-texts.js';
import { problemExample, type ExampleKey, type ProblemExampleName } from './problem-examples.js';
import { tokenTexts } from './token-texts.js';

/** The shared error responses: the codes a body may carry (the first gives the status), and the text that explains them. */
const ERROR_RESPONSES = {
  BadQuery: { codes: ['BAD_QUERY'], text: 'badQuery' },
  // Writes take no query parameter: one is refused like a body that cannot be read.
  MalformedJson: { codes: ['MALFORMED_JSON', 'BAD_QUERY'], text: 'malformedJson' },
  // The webhook writes: the same, or a receiver's address refused (section 16).
  WebhookBodyRefused: { codes: ['MALFORMED_JSON', 'BAD_QUERY', 'URL_REFUSED'], text: 'webhookBodyRefused' },
  Unauthorized: { codes: ['UNAUTHORIZED'], text: 'unauthorized' },
  Forbidden: { codes: ['FORBIDDEN'], text: 'forbidden' },
  NotFound: { codes: ['NOT_FOUND'], text: 'notFound' },
  MethodNotAllowed: { codes: ['METHOD_NOT_ALLOWED'], text: 'methodNotAllowed' },
  WriteConflict: { codes: ['CONFLICT'], text: 'writeConflict' },
  DeleteConflict: { codes: ['DELETE_GUARDED', 'REFERENCED', 'CONFLICT'], text: 'deleteConflict' },
  PreconditionFailed: { codes: ['PRECONDITION_FAILED'], text: 'preconditionFailed' },
  PayloadTooLarge: { codes: ['PAYLOAD_TOO_LARGE'], text: 'payloadTooLarge' },
  UnsupportedMediaType: { codes: ['UNSUPPORTED_MEDIA_TYPE'], text: 'unsupportedMediaType' },
  ValidationFailed: { codes: ['VALIDATION_FAILED'], text: 'validationFailed' },
  RateLimited: { codes: ['RATE_LIMITED'], text: 'rateLimited' },
  // The change stream's 429: the request budget, or the streams a token or address may hold.
  StreamLimited: { codes: ['TOO_MANY_STREAMS', 'RATE_LIMITED'], text: 'streamLimited' },
  InternalError: { codes: ['INTERNAL_ERROR'], text: 'internalError' },
  Unavailable: { codes: ['UNAVAILABLE', 'READ_ONLY'], text: 'unavailable' },
  InsufficientStorage: { codes: ['INSUFFICIENT_STORAGE'], text: 'insufficientStorage' },
} as const satisfies Record<ProblemExampleName, { codes: readonly [ErrorCode, ...ErrorCode[]]; text: keyof DocumentTexts }>;

export type ErrorName = keyof typeof ERROR_RESPONSES;

function statusOf(name: ErrorName): number {
  return STATUS_OF[ERROR_RESPONSES[name].codes[0]];
}

/** The responses an operation can give, each as a reference to a shared response. */
export function errors(...names: ErrorName[]): JsonObject {
  const sorted = [...new Set(names)].sort((a, b) => statusOf(a) - statusOf(b));
  const statuses = sorted.map(statusOf);
  // One response per status: two shared responses for one status would silently hide one.
  if (new Set(statuses).size !== statuses.length) throw new Error(`two error responses share a status: ${sorted.join(', ')}`);
  return Object.fromEntries(sorted.map((name) => [String(statusOf(name)), { $ref: `#/components/responses/${name}` }]));
}

/** Errors any path of the service can answer with. */
export const ALWAYS: ErrorName[] = ['NotFound', 'MethodNotAllowed', 'InternalError', 'Unavailable'];
/** Added by bearer-token access wherever a token is needed: 401 (none, unknown, expired),
 * 403 (scope, or an address outside the token's allowed_ips, reads included), 429. */
export const ACCESS: ErrorName[] = ['Unauthorized', 'Forbidden', 'RateLimited'];
/** Refusals that do not depend on the method: the path, access, the service's own state. */
export const ANY_METHOD: ErrorName[] = ['NotFound', ...ACCESS, 'InternalError', 'Unavailable'];
export const BODY_ERRORS: ErrorName[] = ['MalformedJson', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed', 'WriteConflict'];
/** Added by every write: the database may have no room left for it. */
export const STORAGE_ERRORS: ErrorName[] = ['InsufficientStorage'];

/** Headers some error responses must carry. */
const ERROR_HEADERS: Partial<Record<ErrorName, JsonObject>> = {
  MethodNotAllowed: { Allow: headerRef('Allow') },
  Unauthorized: { 'WWW-Authenticate': headerRef('WWWAuthenticate') },
  RateLimited: { 'Retry-After': headerRef('RetryAfter') },
  StreamLimited: { 'Retry-After': headerRef('RetryAfter') },
  Unavailable: { 'Retry-After': headerRef('RetryAfterBusy') },
};

function errorResponse(context: DocumentContext, name: ErrorName): JsonObject {
  const { codes, text } = ERROR_RESPONSES[name];
  const schema = {
    allOf: [
      ref('Problem'),
      {
        type: 'object',
        properties: { status: { type: 'integer', const: statusOf(name) }, code: codes.length === 1 ? { type: 'string', const: codes[0] } : { type: 'string', enum: [...codes] } },
      },
    ],
  };
  const made = problemExample(name, context.language);
  const summaries = tokenTexts(context.language).examples;
  const examples =
    'status' in made
      ? { example: made }
      : { examples: Object.fromEntries(Object.entries(made).map(([key, value]) => [key, { summary: summaries[key as ExampleKey], value }])) };
  const response: JsonObject = {
    description: context.t[text],
    content: { 'application/problem+json': { schema, ...examples } },
  };
  const headers = ERROR_HEADERS[name];
  if (headers !== undefined) response.headers = headers;
  return response;
}

/** Every shared error response, by name (components.responses). */
export function errorResponses(context: DocumentContext): JsonObject {
  return Object.fromEntries(Object.keys(ERROR_RESPONSES).map((name) => [name, errorResponse(context, name as ErrorName)]));
}

export function problemSchema(t: DocumentTexts): JsonObject {
  return {
    type: 'object',
    description: t.problem,
    required: ['type', 'title', 'status', 'code', 'detail', 'error'],
    properties: {
      type: { type: 'string', const: 'about:blank' },
      title: { type: 'string' },
      status: { type: 'integer', minimum: 400, maximum: 599 },
      code: { type: 'string', enum: [...ERROR_CODES] },
      detail: { type: 'string' },
      error: { type: 'string' },
      errors: {
        type: 'array',
        description: t.problemErrors,
        items: {
          type: 'object',
          required: ['field', 'message'],
          additionalProperties: false,
          properties: {
            field: { type: 'string' },
            message: { type: 'string' },
            index: { type: 'integer', minimum: 0, description: t.problemIndex },
            at: { type: 'string', description: t.problemAt },
          },
        },
      },
      item: { type: 'null', description: t.problemItem },
      allowed: { type: 'array', items: { type: 'string' }, description: t.problemAllowed },
      fault: { type: 'string', enum: ['INSUFFICIENT_STORAGE', 'READ_ONLY'] satisfies ErrorCode[], description: t.problemFault },
      disk: { $ref: '#/components/schemas/DiskSpace' },
      referenced_by: {
        type: 'array',
        description: t.referencedBy,
        items: {
          type: 'object',
          required: ['resource', 'ids'],
          additionalProperties: false,
          properties: { resource: { type: 'string' }, ids: { type: 'array', items: { type: 'integer', minimum: 1 } } },
        },
      },
    },
  };
}
