// What every part of the OpenAPI document is built with: the texts of its language, the
// registry it describes, and the small JSON helpers that spell references.
import type { TSchema } from 'typebox';
import type { MessageLanguage } from '../messages/languages.js';
import type { Registry } from '../registry/registry.js';
import type { DocumentTexts } from './document-texts.js';

export type JsonObject = Record<string, unknown>;

export interface DocumentContext {
  readonly t: DocumentTexts;
  readonly language: MessageLanguage;
  readonly registry: Registry;
}

export const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
export const parameterRef = (name: string): JsonObject => ({ $ref: `#/components/parameters/${name}` });
export const headerRef = (name: string): JsonObject => ({ $ref: `#/components/headers/${name}` });
export const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });

/** A plain JSON copy: TypeBox marks its schemas with symbols that have no place here. */
export function plain(schema: TSchema, extra: JsonObject = {}): JsonObject {
  return { ...(JSON.parse(JSON.stringify(schema)) as JsonObject), ...extra };
}
