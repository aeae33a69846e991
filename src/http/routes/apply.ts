// POST /{lang}/api/apply (contract section 18): a configuration document, JSON or YAML, made
// the stored configuration, answered by the pipeline (pipeline/parse-apply-request.ts,
// execute-apply.ts, apply.ts). Its body may be far larger than any other
// request's (APPLY_BODY_LIMIT): a fleet's whole configuration. YAML is parsed here, in this
// route's own plugin, so that no other endpoint takes it.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { parse } from 'yaml';
import { apiError } from '../../errors/api-error.js';
import { holdsLoneSurrogate } from '../lone-surrogates.js';
import { pipelineRoutes, type PipelineContext } from './endpoint-route.js';

/** The media types of YAML in use (RFC 9512 registered the first). */
export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];
// Aliases expand: a few make a document that grows without bound ("billion laughs").
const MAX_ALIASES = 100;

function parseYaml(bytes: Buffer): unknown {
  if (!isUtf8(bytes)) throw apiError('MALFORMED_JSON', 'body.encoding');
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw apiError('MALFORMED_JSON', 'body.yamlEmpty');
  let value: unknown;
  try {
    // YAML 1.2's core schema (the one JSON is part of): no dates or binaries read from plain text.
    value = parse(text, { schema: 'core', uniqueKeys: true, maxAliasCount: MAX_ALIASES, merge: false, strict: true });
  } catch {
    throw apiError('MALFORMED_JSON', 'body.yamlMalformed');
  }
  if (holdsLoneSurrogate(text, value)) throw apiError('MALFORMED_JSON', 'body.loneSurrogate');
  return value;
}

export default async function applyRoutes(app: FastifyInstance, { context, bodyLimit }: { context: PipelineContext; bodyLimit: number }): Promise<void> {
  app.addContentTypeParser(YAML_MEDIA_TYPES, { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseYaml(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  pipelineRoutes(app, context, [['/:lang/api/apply', 'apply']], {}, { limit: bodyLimit, mediaTypes: ['application/json', ...YAML_MEDIA_TYPES] });
}
