// POST /{lang}/api/apply (contract section 18): a configuration document, JSON or YAML, made
// the stored configuration (pipeline/apply.ts). Its body may be far larger than any other
// request's (APPLY_BODY_LIMIT): a fleet's whole configuration. YAML is parsed here, in this
// route's own plugin, so that no other endpoint takes it.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parse } from 'yaml';
import { apiError } from '../../errors/api-error.js';
import { applyDocument, type ApplyContext } from '../../pipeline/apply.js';
import { single } from '../../pipeline/parse-list-query.js';
import { writeQuery } from '../../pipeline/parse-request.js';
import type { Outcome } from '../../pipeline/respond.js';
import type { Registry } from '../../registry/registry.js';
import { endpointRoute } from './endpoint-route.js';

/** The media types of YAML in use (RFC 9512 registered the first). */
export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];
// Aliases expand: a few make a document that grows without bound ("billion laughs").
const MAX_ALIASES = 100;

function parseYaml(bytes: Buffer): unknown {
  if (!isUtf8(bytes)) throw apiError('MALFORMED_JSON', 'body.encoding');
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw apiError('MALFORMED_JSON', 'body.empty');
  try {
    // YAML 1.2's core schema (the one JSON is part of): no dates or binaries read from plain text.
    return parse(text, { schema: 'core', uniqueKeys: true, maxAliasCount: MAX_ALIASES, merge: false, strict: true });
  } catch {
    throw apiError('MALFORMED_JSON', 'body.yamlMalformed');
  }
}

/** `?prune=servers,tags`: resources of the document, each named once. */
function pruneOf(registry: Registry, raw: unknown): Set<string> {
  if (raw === undefined) return new Set();
  const names = single('prune', raw).split(',').map((name) => name.trim());
  const prune = new Set(names);
  const known = (name: string) => registry.find(name)?.naturalKey !== undefined;
  if (prune.size !== names.length || !names.every(known)) throw apiError('BAD_QUERY', 'query.pruneResource');
  return prune;
}

export default async function applyRoutes(app: FastifyInstance, { context, bodyLimit }: { context: ApplyContext; bodyLimit: number }): Promise<void> {
  app.addContentTypeParser(YAML_MEDIA_TYPES, { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseYaml(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  async function answer(_target: unknown, request: FastifyRequest): Promise<Outcome> {
    const query = request.query as Record<string, unknown>;
    const { dryRun } = writeQuery(query, ['prune']);
    const prune = pruneOf(app.registry, query.prune);
    const author = { actor: request.caller!.name, requestId: request.id };
    const ifMatch = request.headers['if-match'];
    const { plan, etag } = await applyDocument(context, { document: request.body, prune, dryRun, ifMatch, author });
    return { status: 200, headers: { etag, ...(dryRun ? { 'dry-run': 'true' } : {}) }, body: JSON.stringify(plan) };
  }

  endpointRoute(app, app.registry, '/:lang/api/apply', 'apply', answer, {}, { limit: bodyLimit, mediaTypes: ['application/json', ...YAML_MEDIA_TYPES] });
}
