// Parse step of the change log's endpoints (contract section 13): the query of
// `/changes` and `/changes/stream`, and the paging of an entry's history. An unknown or
// invalid parameter is a 400, never ignored.
import { apiError } from '../errors/api-error.js';
import type { Registry } from '../registry/registry.js';
import { API_TOKENS } from '../store/api-token-definition.js';
import { WEBHOOKS } from '../store/webhook-definition.js';
import { CHANGE_ACTIONS, type ChangeAction, type ChangeFilter } from '../store/change-log.js';
import { integerParameter, refuseUnknownParameters, single } from './parse-list-query.js';
import { parseId } from './request-target.js';

/** Records one `/changes` page holds at most, and by default. */
export const CHANGES_LIMIT_MAX = 1000;
export const CHANGES_LIMIT_DEFAULT = 100;
export const SINCE_MAX = 9_999_999_999;
export const HISTORY_OFFSET_MAX = 1_000_000_000;

export interface ChangeQuery {
  readonly since: number;
  readonly filter: ChangeFilter;
  readonly limit: number;
}

/** The resources whose changes are recorded: the registry's, the managed tokens and the webhooks. */
export function changeResources(registry: Registry): string[] {
  return [...registry.resources.map((resource) => resource.name), API_TOKENS.name, WEBHOOKS.name];
}

function parseFilter(registry: Registry, query: Record<string, unknown>): ChangeFilter {
  const filter: { resource?: string; entryId?: number; actor?: string; action?: ChangeAction } = {};
  if (query.resource !== undefined) {
    const name = single('resource', query.resource);
    // Named by the registry, or the managed tokens (their creations and revocations): a
    // resource removed since keeps its records, under its name.
    if (!changeResources(registry).includes(name)) throw apiError('BAD_QUERY', 'query.oneOf', { parameter: 'resource', values: changeResources(registry).join(', ') });
    filter.resource = name;
  }
  if (query.entry_id !== undefined) {
    const id = parseId(single('entry_id', query.entry_id));
    if (id === undefined) throw apiError('BAD_QUERY', 'query.filterValue', { parameter: 'entry_id' });
    filter.entryId = id;
  }
  if (query.actor !== undefined) {
    const actor = single('actor', query.actor);
    if (actor.length === 0 || actor.length > 64) throw apiError('BAD_QUERY', 'query.filterValue', { parameter: 'actor' });
    filter.actor = actor;
  }
  if (query.action !== undefined) {
    const action = single('action', query.action);
    if (!(CHANGE_ACTIONS as readonly string[]).includes(action)) throw apiError('BAD_QUERY', 'query.oneOf', { parameter: 'action', values: CHANGE_ACTIONS.join(', ') });
    filter.action = action as ChangeAction;
  }
  return filter;
}

/** `GET /changes?since=&resource=&entry_id=&actor=&action=&limit=`. */
export function parseChangeQuery(registry: Registry, query: Record<string, unknown>): ChangeQuery {
  refuseUnknownParameters(query, ['since', 'resource', 'entry_id', 'actor', 'action', 'limit']);
  return {
    since: integerParameter('since', query.since, 0, SINCE_MAX, 0),
    filter: parseFilter(registry, query),
    limit: integerParameter('limit', query.limit, 1, CHANGES_LIMIT_MAX, CHANGES_LIMIT_DEFAULT),
  };
}

/** `GET /changes/stream`: the list's filters and `since`, or the `Last-Event-ID` a
 * reconnecting EventSource sends, which wins (it is where the reader really is). */
export function parseStreamQuery(registry: Registry, query: Record<string, unknown>, lastEventId: string | undefined): { since: number; filter: ChangeFilter } {
  refuseUnknownParameters(query, ['since', 'resource', 'entry_id', 'actor', 'action']);
  const since = integerParameter('since', query.since, 0, SINCE_MAX, 0);
  const resumed = lastEventId === undefined ? undefined : integerParameter('Last-Event-ID', lastEventId.trim(), 0, SINCE_MAX, 0);
  return { since: resumed ?? since, filter: parseFilter(registry, query) };
}

/** `GET /config/{resource}/{id}/history?limit=&offset=`. */
export function parseHistoryQuery(query: Record<string, unknown>): { limit: number; offset: number } {
  refuseUnknownParameters(query, ['limit', 'offset']);
  return {
    limit: integerParameter('limit', query.limit, 1, CHANGES_LIMIT_MAX, CHANGES_LIMIT_DEFAULT),
    offset: integerParameter('offset', query.offset, 0, HISTORY_OFFSET_MAX, 0),
  };
}
