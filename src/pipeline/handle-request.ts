// The whole request of the configuration API, top to bottom, as PostgREST reads: parse the
// HTTP request into an API request, plan it against the registry (plain data, no SQL),
// execute the plan (one transaction for a write), and respond. A driver error that escapes
// the execution becomes the contract's answer here: 503 to retry, 507 for a full disk, 503
// READ_ONLY for a database that refuses writes, or 409 for a unique or foreign-key race that
// got past the checks; anything else is a 500. A 5xx keeps the driver's error as its cause,
// which its log line names (the client never sees it).
import { ApiError, apiError, apiErrorCausedBy } from '../errors/api-error.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../store/resource-store.js';
import { execute, type ExecutionContext } from './execute.js';
import { parseRequest, type HttpInput } from './parse-request.js';
import { planRequest } from './plan.js';
import type { RequestTarget } from './request-target.js';
import { respond, type Outcome } from './respond.js';

export interface PipelineContext extends ExecutionContext {
  readonly registry: Registry;
}

export async function handleRequest(context: PipelineContext, target: RequestTarget, input: HttpInput): Promise<Outcome> {
  const request = parseRequest(target, input);
  const plan = planRequest(context.registry, request);
  let result;
  try {
    result = await execute(context, plan);
  } catch (error) {
    throw asApiError(context.store, error);
  }
  return respond(result);
}

/** What a driver error means for the answer (any other error is passed on). */
export function asApiError(store: ResourceStore, error: unknown): unknown {
  if (error instanceof ApiError) return error;
  switch (store.failureOf(error)) {
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
