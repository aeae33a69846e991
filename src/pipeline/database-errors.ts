// The one place where a driver error becomes the contract's answer. Each dialect says what
// its driver's codes mean (`failureOf` in src/db/dialects/: ER_DUP_ENTRY, 23505,
// SQLITE_CONSTRAINT_UNIQUE, lost connections...); this module says what each meaning answers.
// The route factory (src/http/routes/endpoint-route.ts) applies it to whatever an endpoint
// throws, so that no endpoint wraps its own: 503 to retry, 507 for a full disk, 503 READ_ONLY
// for a database that refuses writes, or 409 for a unique or foreign-key race that got past
// the checks; anything else is passed on (a 500). A 5xx keeps the driver's error as its
// cause, which its log line names (the client never sees it).
import type { DatabaseFailure } from '../db/connect.js';
import { ApiError, apiError, apiErrorCausedBy } from '../errors/api-error.js';

/** What tells a driver error's meaning: the database handle, or a store over it. */
export interface FailureSource {
  failureOf(error: unknown): DatabaseFailure;
}

/** What a driver error means for the answer (an ApiError, or any other error, is passed on). */
export function asApiError(source: FailureSource, error: unknown): unknown {
  if (error instanceof ApiError) return error;
  switch (source.failureOf(error)) {
    // A concurrent write won the race between our check and the constraint.
    case 'unique':
    case 'foreign-key':
      return apiError('CONFLICT', 'conflict.summary');
    case 'unavailable':
      return apiErrorCausedBy(error, 'UNAVAILABLE', 'database.unavailable');
    case 'full':
      return apiErrorCausedBy(error, 'INSUFFICIENT_STORAGE', 'database.full');
    case 'read-only':
      return apiErrorCausedBy(error, 'READ_ONLY', 'database.readOnly');
    default:
      return error;
  }
}
