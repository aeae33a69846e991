// Parse step of `POST /{lang}/api/apply` (contract section 18): a configuration document, JSON
// or YAML (the HTTP layer parses YAML, in the route's own plugin, so that no other endpoint
// takes it), `?dry_run` and `?prune`, If-Match on the configuration's tag.
import { apiError } from '../errors/api-error.js';
import type { Registry } from '../registry/registry.js';
import type { Author } from '../store/change-log.js';
import type { ApplyRequest } from './apply.js';
import { single } from './parse-list-query.js';
import { writeQuery, type HttpInput } from './parse-request.js';

export type ApplyDocumentRequest = ApplyRequest & { readonly action: 'apply' };

/** `?prune=servers,tags`: resources of the document, each named once. */
function pruneOf(registry: Registry, raw: unknown): Set<string> {
  if (raw === undefined) return new Set();
  const names = single('prune', raw).split(',').map((name) => name.trim());
  const prune = new Set(names);
  const known = (name: string) => registry.find(name)?.naturalKey !== undefined;
  if (prune.size !== names.length || !names.every(known)) throw apiError('BAD_QUERY', 'query.pruneResource');
  return prune;
}

export function parseApplyRequest(registry: Registry, input: HttpInput, author: Author): ApplyDocumentRequest {
  const { query } = input;
  const { dryRun } = writeQuery(query, ['prune']);
  return { action: 'apply', document: input.body, prune: pruneOf(registry, query.prune), dryRun, ifMatch: input.ifMatch, author };
}
