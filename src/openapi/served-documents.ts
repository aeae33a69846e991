// The renditions of the OpenAPI document the service serves: one per language that has
// messages, as JSON and as YAML, all made once at start-up so that a request only picks one.
import { stringify } from 'yaml';
import type { MessageLanguage } from '../messages/languages.js';
import type { Registry } from '../registry/registry.js';
import type { DocumentFormat } from '../pipeline/document-format.js';
import { buildOpenApiDocument } from './build-openapi-document.js';

// Stated in the pipeline, which reads the export's format with them.
export { DOCUMENT_CONTENT_TYPES, DOCUMENT_FORMATS, type DocumentFormat } from '../pipeline/document-format.js';

export type ServedDocuments = Readonly<Record<MessageLanguage, Readonly<Record<DocumentFormat, string>>>>;

function renditions(registry: Registry, version: string, language: MessageLanguage): Record<DocumentFormat, string> {
  const document = buildOpenApiDocument(registry, version, language);
  // No anchors or aliases: some YAML readers of OpenAPI documents do not follow them.
  return { json: JSON.stringify(document), yaml: stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 }) };
}

export function buildServedDocuments(registry: Registry, version: string): ServedDocuments {
  return { en: renditions(registry, version, 'en'), fr: renditions(registry, version, 'fr') };
}
