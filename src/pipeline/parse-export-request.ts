// Parse step of `GET /{lang}/api/export` (contract section 18): the whole configuration as one
// document, read with a `read` token like every GET. JSON, or YAML when `?format=yaml` asks
// for it or, without the parameter, when Accept prefers application/yaml to application/json.
import { documentFormat, type DocumentFormat } from './document-format.js';
import type { HttpInput } from './parse-request.js';

export interface ExportRequest {
  readonly action: 'export';
  readonly format: DocumentFormat;
  /** HEAD: the headers a GET would have, without reading the configuration. */
  readonly headersOnly: boolean;
}

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml']);

/** The format Accept prefers: YAML only when it weighs a YAML type above JSON (a wildcard
 * counts for JSON, the default). */
function acceptedFormat(accept: string | undefined): DocumentFormat {
  if (accept === undefined) return 'json';
  let json = 0;
  let yaml = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = Number(parameters.find((parameter) => parameter.startsWith('q='))?.slice(2) ?? '1');
    const weight = Number.isFinite(q) ? q : 0;
    if (YAML_TYPES.has(type)) yaml = Math.max(yaml, weight);
    else if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, weight);
  }
  return yaml > json ? 'yaml' : 'json';
}

export function parseExportRequest(input: HttpInput): ExportRequest {
  const { query } = input;
  const asked = documentFormat(query);
  return { action: 'export', format: query.format === undefined ? acceptedFormat(input.accept) : asked, headersOnly: input.method === 'HEAD' };
}
