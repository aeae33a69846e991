// Parse step of the pipeline: what a request path names. Runs before the body is read, so
// that an unknown language, resource or id is a 404 and a wrong method a 405, whatever
// the body holds.
import { ApiError, apiError } from '../http/api-error.js';
import { isPlatformLanguage, messageLanguage, type MessageLanguage } from '../http/languages.js';
import { message } from '../http/messages.js';
import { MAX_ID } from '../registry/field-types.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { findResource } from '../registry/resources.js';

export type PathShape = 'collection' | 'item' | 'openapi' | 'docs';

export const ALLOWED_METHODS: Readonly<Record<PathShape, readonly string[]>> = {
  collection: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  item: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  openapi: ['GET', 'HEAD', 'OPTIONS'],
  docs: ['GET', 'HEAD', 'OPTIONS'],
};

export interface RequestTarget {
  shape: PathShape;
  /** The `{lang}` segment as sent, e.g. `zh-cn`. */
  lang: string;
  language: MessageLanguage;
  resource?: ResourceDefinition;
  id?: number;
}

function parseId(segment: string): number | undefined {
  if (!/^[1-9][0-9]{0,9}$/.test(segment)) return undefined;
  const id = Number(segment);
  return id <= MAX_ID ? id : undefined;
}

export function resolveTarget(shape: PathShape, params: Record<string, string | undefined>, method: string): RequestTarget {
  const lang = params.lang ?? '';
  if (!isPlatformLanguage(lang)) throw apiError('NOT_FOUND', 'path.unknown');
  const target: RequestTarget = { shape, lang, language: messageLanguage(lang) };
  if (shape === 'collection' || shape === 'item') {
    const name = params.resource ?? '';
    target.resource = findResource(name);
    if (target.resource === undefined) throw apiError('NOT_FOUND', 'resource.unknown', { resource: name });
  }
  if (shape === 'item') {
    target.id = parseId(params.id ?? '');
    if (target.id === undefined) throw apiError('NOT_FOUND', 'entry.notFound', { id: params.id ?? '', resource: target.resource?.name ?? '' });
  }
  const allowed = ALLOWED_METHODS[shape];
  if (!allowed.includes(method)) {
    const allow = allowed.join(', ');
    throw new ApiError('METHOD_NOT_ALLOWED', message('method.notAllowed', { method, allow }), [], { allow });
  }
  return target;
}
