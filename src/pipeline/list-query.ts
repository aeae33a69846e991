// The query string of a list request, checked against the registry.
import { apiError } from '../http/api-error.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { ListWindow } from '../db/resource-store.js';

export const LIMIT_DEFAULT = 100;
export const LIMIT_MAX = 1000;
const OFFSET_MAX = 1_000_000_000;

function single(name: string, value: unknown): string {
  if (typeof value !== 'string') throw apiError('BAD_QUERY', 'query.repeated', { parameter: name });
  return value;
}

function integerParameter(name: string, raw: unknown, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = single(name, raw);
  const number = /^\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max)) {
    throw apiError('BAD_QUERY', 'query.integerRange', { parameter: name, min, max });
  }
  return number;
}

export function parseListQuery(resource: ResourceDefinition, query: Record<string, unknown>): ListWindow {
  const window: ListWindow = {
    limit: integerParameter('limit', query.limit, 1, LIMIT_MAX, LIMIT_DEFAULT),
    offset: integerParameter('offset', query.offset, 0, OFFSET_MAX, 0),
    includeDeleted: false,
  };
  for (const [name, raw] of Object.entries(query)) {
    if (name === 'limit' || name === 'offset') continue;
    if (name === 'include_deleted' && resource.deletion.mode === 'soft') {
      const value = single(name, raw);
      if (value !== 'true' && value !== 'false') {
        throw apiError('BAD_QUERY', 'query.boolean', { parameter: name });
      }
      window.includeDeleted = value === 'true';
      continue;
    }
    throw apiError('BAD_QUERY', 'query.unknown', { parameter: name });
  }
  return window;
}
