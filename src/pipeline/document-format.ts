// The formats a served document comes in (the OpenAPI document, the configuration export):
// JSON, or YAML when `?format=yaml` asks for it. Here, below both, so that the export's
// parse step and the OpenAPI document's route read the parameter the same way.
import { apiError } from '../errors/api-error.js';

export const DOCUMENT_FORMATS = ['json', 'yaml'] as const;

export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

export const DOCUMENT_CONTENT_TYPES: Readonly<Record<DocumentFormat, string>> = {
  json: 'application/json; charset=utf-8',
  yaml: 'application/yaml; charset=utf-8',
};

/** As on lists, a parameter the route does not know is refused rather than ignored. */
export function documentFormat(query: Record<string, unknown>, accepted: readonly string[] = ['format']): DocumentFormat {
  for (const name of Object.keys(query)) {
    if (!accepted.includes(name)) throw apiError('BAD_QUERY', 'query.unknown', { parameter: name });
  }
  const format = query.format;
  if (format === undefined) return 'json';
  if (typeof format !== 'string') throw apiError('BAD_QUERY', 'query.repeated', { parameter: 'format' });
  if (!(DOCUMENT_FORMATS as readonly string[]).includes(format)) {
    throw apiError('BAD_QUERY', 'query.oneOf', { parameter: 'format', values: DOCUMENT_FORMATS.join(', ') });
  }
  return format as DocumentFormat;
}
