// Parse step: an HTTP request (its target, already resolved before the body was read; its
// query string; its body; its conditional headers) becomes a typed API request. Nothing here
// looks at the database.
import type { Caller } from '../auth/caller.js';
import { apiError } from '../errors/api-error.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { ListQuery } from '../store/list-query.js';
import { parseListQuery } from './parse-list-query.js';
import type { RequestTarget } from './request-target.js';

/** A change names who makes it: the name of the caller's token, or `anonymous` (the
 * change log's `actor`, contract section 13). */
interface Change {
  readonly actor: string;
}

export type ApiRequest =
  | { readonly action: 'list'; readonly resource: ResourceDefinition; readonly list: ListQuery }
  | { readonly action: 'read'; readonly resource: ResourceDefinition; readonly id: number; readonly ifNoneMatch: string | undefined }
  | (Change & { readonly action: 'create'; readonly resource: ResourceDefinition; readonly lang: string; readonly body: unknown })
  | (Change & {
      readonly action: 'replace' | 'patch';
      readonly resource: ResourceDefinition;
      readonly id: number;
      readonly body: unknown;
      readonly ifMatch: string | undefined;
    })
  | (Change & { readonly action: 'delete'; readonly resource: ResourceDefinition; readonly id: number; readonly ifMatch: string | undefined });

/** The parts of an HTTP request the API reads. */
export interface HttpInput {
  readonly method: string;
  readonly query: Record<string, unknown>;
  readonly body: unknown;
  readonly ifMatch: string | undefined;
  readonly ifNoneMatch: string | undefined;
  /** Who sends it (the authorization hook has let it through). */
  readonly caller: Caller;
}

/** Only lists take query parameters; elsewhere one is a mistake worth saying, not ignoring. */
export function refuseQuery(query: Record<string, unknown>): void {
  for (const name in query) throw apiError('BAD_QUERY', 'query.unknown', { parameter: name });
}

export function parseRequest(target: RequestTarget, input: HttpInput): ApiRequest {
  const resource = target.resource!;
  const actor = input.caller.name;
  if (target.endpoint === 'collection') {
    if (input.method !== 'POST') return { action: 'list', resource, list: parseListQuery(resource, input.query) };
    refuseQuery(input.query);
    return { action: 'create', resource, lang: target.lang, body: input.body, actor };
  }
  refuseQuery(input.query);
  const id = target.id!;
  switch (input.method) {
    case 'PUT':
      return { action: 'replace', resource, id, body: input.body, ifMatch: input.ifMatch, actor };
    case 'PATCH':
      return { action: 'patch', resource, id, body: input.body, ifMatch: input.ifMatch, actor };
    case 'DELETE':
      return { action: 'delete', resource, id, ifMatch: input.ifMatch, actor };
    default:
      return { action: 'read', resource, id, ifNoneMatch: input.ifNoneMatch };
  }
}
