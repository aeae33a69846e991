// Parse step: an HTTP request (its target, already resolved before the body was read; its
// query string; its body; its conditional headers) becomes a typed API request. Nothing here
// looks at the database.
import type { Caller } from '../auth/caller.js';
import { ApiError, apiError, fieldProblem, validationFailed } from '../errors/api-error.js';
import { message } from '../messages/messages.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { Author } from '../store/change-log.js';
import type { ListQuery } from '../store/list-query.js';
import { API_TOKENS } from '../store/api-token-definition.js';
import { parseChangeQuery, parseHistoryQuery, parseStreamQuery, type ChangeQuery } from './parse-change-query.js';
import type { ChangeStreamPlan } from './execute-change-stream.js';
import { parseListQuery, parseListQueryOf, single } from './parse-list-query.js';
import { parseId, type RequestTarget } from './request-target.js';
import { parseWebhookRequest, WEBHOOK_ENDPOINTS, type WebhookRequest } from './parse-webhook-request.js';
import { MONITORING_ENDPOINTS, parseMonitoringRequest, type MonitoringRequest } from './parse-monitoring-request.js';
import { parseExportRequest, type ExportRequest } from './parse-export-request.js';
import { parseApplyRequest, type ApplyDocumentRequest } from './parse-apply-request.js';
import type { Registry } from '../registry/registry.js';

/** Entries one bulk request may carry (contract section 12). */
export const BULK_MAX = 1000;

interface Write {
  readonly resource: CompiledResource;
  /** Who makes the change: the name of the caller's token, or `anonymous`, and the request's
   * id (the change log's `actor` and `request_id`, contract section 13). */
  readonly author: Author;
  /** Check everything, answer as if done, change nothing. */
  readonly dryRun: boolean;
}

export type ApiRequest =
  | { readonly action: 'list'; readonly resource: CompiledResource; readonly list: ListQuery; readonly ifNoneMatch: string | undefined }
  | { readonly action: 'read'; readonly resource: CompiledResource; readonly id: number; readonly ifNoneMatch: string | undefined }
  | (Write & { readonly action: 'create'; readonly lang: string; readonly body: unknown })
  | (Write & { readonly action: 'replace' | 'patch'; readonly id: number; readonly body: unknown; readonly ifMatch: string | undefined })
  | (Write & { readonly action: 'delete' | 'restore'; readonly id: number; readonly ifMatch: string | undefined })
  | (Write & { readonly action: 'bulk-create' | 'bulk-patch'; readonly bodies: readonly unknown[] })
  | (Write & { readonly action: 'bulk-delete'; readonly ids: readonly number[] })
  | TokenRequest
  | ChangeLogRequest
  | WebhookRequest
  | MonitoringRequest
  | ExportRequest
  | ApplyDocumentRequest
  | ChangeStreamRequest;

/** `/changes/stream`: where the stream starts and what it shows (its plan as parsed). */
export type ChangeStreamRequest = ChangeStreamPlan;

/** The managed API tokens (contract section 14): a list, one token, a creation, a revocation. */
export type TokenRequest =
  | { readonly action: 'list-tokens'; readonly list: ListQuery; readonly ifNoneMatch: string | undefined }
  | { readonly action: 'read-token'; readonly id: number; readonly ifNoneMatch: string | undefined }
  | { readonly action: 'issue-token'; readonly lang: string; readonly body: unknown; readonly author: Author }
  | { readonly action: 'revoke-token'; readonly id: number; readonly author: Author; readonly ifMatch: string | undefined };

/** The change log's reads (contract section 13): `/changes` and an entry's history. */
export type ChangeLogRequest =
  | { readonly action: 'changes'; readonly query: ChangeQuery }
  | { readonly action: 'history'; readonly resource: CompiledResource; readonly id: number; readonly limit: number; readonly offset: number };

/** The parts of an HTTP request the API reads. */
export interface HttpInput {
  readonly method: string;
  readonly query: Record<string, unknown>;
  /** The query string `query` was parsed from, as sent (without the `?`), where known: a list
   * query parsed once is then reused for the same string. */
  readonly rawQuery?: string;
  readonly body: unknown;
  readonly ifMatch: string | undefined;
  readonly ifNoneMatch: string | undefined;
  /** The Accept header, where an endpoint's format follows it (the export). */
  readonly accept?: string | undefined;
  /** The Last-Event-ID header a reconnecting EventSource sends (the change stream). */
  readonly lastEventId?: string | undefined;
  /** Who sends it (the authorization hook has let it through). */
  readonly caller: Caller;
  /** The request's id, as its log line and its `x-request-id` header say. */
  readonly requestId: string;
}

/** Writes take `dry_run` and the parameters named, nothing else: a mistake is said, not ignored. */
export function writeQuery(query: Record<string, unknown>, allowed: readonly string[] = []): { dryRun: boolean } {
  refuseQuery(query, ['dry_run', ...allowed]);
  if (query.dry_run === undefined) return { dryRun: false };
  const value = single('dry_run', query.dry_run);
  if (value !== 'true' && value !== 'false') throw apiError('BAD_QUERY', 'query.boolean', { parameter: 'dry_run' });
  return { dryRun: value === 'true' };
}

/** Refuses any query parameter but those `known`: a read of one entry has none (nor have the
 * token endpoints), a write `dry_run` and those it names. The resources' own check, kept here
 * rather than borrowed from the list parser (parse-list-query.ts has the same for the other
 * endpoints' parsers), so that a request that is no list never calls into it. */
export function refuseQuery(query: Record<string, unknown>, known: readonly string[] = []): void {
  for (const name in query) if (!known.includes(name)) throw apiError('BAD_QUERY', 'query.unknown', { parameter: name });
}

/** A bulk body: a JSON array of 1 to BULK_MAX entries. */
function bulkBodies(body: unknown): readonly unknown[] {
  if (!Array.isArray(body) || body.length === 0 || body.length > BULK_MAX) {
    throw validationFailed([fieldProblem('', 'field.bulkBody', { max: BULK_MAX })]);
  }
  return body;
}

/** `?id=1,2,3`: the entries of a bulk delete. */
function bulkIds(query: Record<string, unknown>): number[] {
  const text = query.id === undefined ? '' : single('id', query.id);
  const ids = text.split(',').map((part) => parseId(part.trim()));
  if (text === '' || ids.length > BULK_MAX || ids.some((id) => id === undefined) || new Set(ids).size !== ids.length) {
    throw new ApiError('BAD_QUERY', message('query.bulkIds', { parameter: 'id', max: BULK_MAX }));
  }
  return ids as number[];
}

/** No body, or `{}`: many clients send an empty JSON object with every POST. Anything else
 * would be a mistake (a body meant for another request), said rather than ignored. */
function isNoBody(body: unknown): boolean {
  if (body === undefined) return true;
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0;
}

function parseTokenRequest(target: RequestTarget, input: HttpInput, author: Author): TokenRequest {
  const { method, query } = input;
  if (target.endpoint === 'tokens' && method !== 'POST') return { action: 'list-tokens', list: parseListQuery(API_TOKENS, query), ifNoneMatch: input.ifNoneMatch };
  refuseQuery(query);
  if (target.endpoint === 'tokens') return { action: 'issue-token', lang: target.lang, body: input.body, author };
  return method === 'DELETE' ? { action: 'revoke-token', id: target.id!, author, ifMatch: input.ifMatch } : { action: 'read-token', id: target.id!, ifNoneMatch: input.ifNoneMatch };
}

export function parseRequest(registry: Registry, target: RequestTarget, input: HttpInput): ApiRequest {
  const { method, query, body } = input;
  const author: Author = { actor: input.caller.name, requestId: input.requestId };
  switch (target.endpoint) {
    case 'tokens':
    case 'token':
      return parseTokenRequest(target, input, author);
    case 'changes':
      return { action: 'changes', query: parseChangeQuery(registry, query) };
    case 'history':
      return { action: 'history', resource: target.resource!, id: target.id!, ...parseHistoryQuery(query) };
    case 'configurationExport':
      return parseExportRequest(input);
    case 'apply':
      return parseApplyRequest(registry, input, author);
    case 'changeStream':
      return { action: 'change-stream', ...parseStreamQuery(registry, query, input.lastEventId) };
    default:
      if (WEBHOOK_ENDPOINTS.has(target.endpoint)) return parseWebhookRequest(target, input, author);
      if (MONITORING_ENDPOINTS.has(target.endpoint)) return parseMonitoringRequest(registry, target, input);
      break;
  }
  const resource = target.resource!;
  if (target.endpoint === 'collection') {
    switch (method) {
      case 'POST': {
        const { dryRun } = writeQuery(query);
        if (Array.isArray(body)) return { action: 'bulk-create', resource, author, dryRun, bodies: bulkBodies(body) };
        return { action: 'create', resource, author, dryRun, lang: target.lang, body };
      }
      case 'PATCH':
        return { action: 'bulk-patch', resource, author, ...writeQuery(query), bodies: bulkBodies(body) };
      case 'DELETE':
        return { action: 'bulk-delete', resource, author, ...writeQuery(query, ['id']), ids: bulkIds(query) };
      default:
        return {
          action: 'list',
          resource,
          list: input.rawQuery === undefined ? parseListQuery(resource, query) : parseListQueryOf(resource, input.rawQuery, query),
          ifNoneMatch: input.ifNoneMatch,
        };
    }
  }
  const id = target.id!;
  const ifMatch = input.ifMatch;
  if (target.endpoint === 'restore') {
    const { dryRun } = writeQuery(query);
    if (!isNoBody(body)) throw validationFailed([fieldProblem('', 'field.noBody')]);
    return { action: 'restore', resource, id, ifMatch, author, dryRun };
  }
  switch (method) {
    case 'PUT':
      return { action: 'replace', resource, id, body, ifMatch, author, ...writeQuery(query) };
    case 'PATCH':
      return { action: 'patch', resource, id, body, ifMatch, author, ...writeQuery(query) };
    case 'DELETE':
      return { action: 'delete', resource, id, ifMatch, author, ...writeQuery(query) };
    default:
      refuseQuery(query);
      return { action: 'read', resource, id, ifNoneMatch: input.ifNoneMatch };
  }
}
