// One example problem body per error response of the document (several, by name, where one
// status has several causes worth showing), made by the very function that writes the
// service's error bodies (problemBody), in the document's language: the examples cannot show
// a body or a sentence the service would not send.
import { ApiError, entryNotFound, fieldProblem, problemBody, validationFailed, type ProblemBody } from '../errors/api-error.js';
import type { MessageLanguage } from '../messages/languages.js';
import { message } from '../messages/messages.js';
import type { TokenTexts } from './token-texts.js';

/** The names of examples where one response shows several causes; token-texts.ts words them. */
export type ExampleKey = keyof TokenTexts['examples'];

const EXAMPLES = {
  BadQuery: () => new ApiError('BAD_QUERY', message('query.unknown', { parameter: 'colour' })),
  MalformedJson: () => new ApiError('MALFORMED_JSON', message('body.malformed')),
  WebhookBodyRefused: () => new ApiError('URL_REFUSED', message('webhook.urlRefused', { address: '10.0.0.7' })),
  Unauthorized: () => ({
    missing: new ApiError('UNAUTHORIZED', message('auth.missing')),
    expired: new ApiError('UNAUTHORIZED', message('auth.expired')),
  }),
  Forbidden: () => ({
    readOnly: new ApiError('FORBIDDEN', message('auth.readOnly', { method: 'POST' })),
    adminOnly: new ApiError('FORBIDDEN', message('auth.adminOnly')),
    address: new ApiError('FORBIDDEN', message('auth.address')),
  }),
  NotFound: () => entryNotFound('tags', 42),
  MethodNotAllowed: () => new ApiError('METHOD_NOT_ALLOWED', message('method.notAllowed', { method: 'DELETE', allow: 'GET, HEAD, POST, OPTIONS' })),
  WriteConflict: () => new ApiError('CONFLICT', message('conflict.summary'), [fieldProblem('name', 'conflict.unique')]),
  DeleteConflict: () =>
    new ApiError('REFERENCED', message('delete.referenced', { resource: 'ssh-keys', id: 3, users: 'storage-areas 5, 8' }), [], {}, {
      referenced_by: [{ resource: 'storage-areas', ids: [5, 8] }],
    }),
  PreconditionFailed: () => new ApiError('PRECONDITION_FAILED', message('precondition.failed')),
  PayloadTooLarge: () => new ApiError('PAYLOAD_TOO_LARGE', message('body.tooLarge', { limit: 1_048_576 })),
  UnsupportedMediaType: () => new ApiError('UNSUPPORTED_MEDIA_TYPE', message('body.mediaType')),
  ValidationFailed: () => validationFailed([{ field: 'color', message: message('field.hexColor') }, fieldProblem('name', 'field.required')]),
  RateLimited: () => new ApiError('RATE_LIMITED', message('rate.limited', { seconds: 12 })),
  StreamLimited: () => ({
    streamsPerToken: new ApiError('TOO_MANY_STREAMS', message('streams.perToken', { limit: 16, seconds: 5 })),
    streamsPerAddress: new ApiError('TOO_MANY_STREAMS', message('streams.perAddress', { limit: 32, seconds: 5 })),
    rateLimited: new ApiError('RATE_LIMITED', message('rate.limited', { seconds: 12 })),
  }),
  InternalError: () => new ApiError('INTERNAL_ERROR', message('server.internal')),
  Unavailable: () => new ApiError('UNAVAILABLE', message('database.unavailable')),
  InsufficientStorage: () => new ApiError('INSUFFICIENT_STORAGE', message('database.full')),
} satisfies Record<string, () => ApiError | Readonly<Partial<Record<ExampleKey, ApiError>>>>;

export type ProblemExampleName = keyof typeof EXAMPLES;

/** One body, or several by the name of their cause. */
export function problemExample(name: ProblemExampleName, language: MessageLanguage): ProblemBody | Partial<Record<ExampleKey, ProblemBody>> {
  const made: ApiError | Readonly<Partial<Record<ExampleKey, ApiError>>> = EXAMPLES[name]();
  if (made instanceof ApiError) return problemBody(made, language);
  return Object.fromEntries(Object.entries(made).map(([key, error]) => [key, problemBody(error, language)]));
}
