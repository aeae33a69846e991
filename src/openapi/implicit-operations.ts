// The operations every path answers without a route of its own: HEAD wherever GET is (GET's
// answers, without their bodies) except on the paths that serve GET alone (the change stream: it
// has no end for HEAD to report), and OPTIONS everywhere (204 with Allow). They are added to the
// finished document, so that they follow whatever operations the other builders declare, and
// clients and validating proxies learn that the service answers them.
import { headerRef, type JsonObject } from './document-parts.js';
import type { DocumentTexts } from './document-texts.js';
import { ANY_METHOD, errors } from './error-responses.js';

const RESPONSE_REF = '#/components/responses/';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'trace'];

/** The refusals that do not depend on the method: the ones OPTIONS can meet too. */
const OPTIONS_STATUSES = new Set(Object.keys(errors(...ANY_METHOD)));

/** A response as HEAD gives it: GET's status and headers, no content. Shared responses get a
 * shared bodiless twin (`NotFoundWithoutBody`), made once. */
function withoutBody(response: JsonObject, components: Record<string, JsonObject>): JsonObject {
  const ref = response.$ref;
  if (typeof ref !== 'string') {
    const { content: _content, ...rest } = response;
    return rest;
  }
  const name = ref.slice(RESPONSE_REF.length);
  const shared = components[name]!;
  if (shared.content === undefined) return response;
  const twin = `${name}WithoutBody`;
  components[twin] ??= withoutBody(shared, components);
  return { $ref: `${RESPONSE_REF}${twin}` };
}

function headOf(get: JsonObject, t: DocumentTexts, components: Record<string, JsonObject>): JsonObject {
  const { operationId, summary, responses, ...rest } = get;
  const bodiless = Object.entries(responses as Record<string, JsonObject>).map(([status, response]) => [status, withoutBody(response, components)]);
  return { ...rest, operationId: `${operationId as string}Head`, summary: t.head(summary as string), description: t.headDescription, responses: Object.fromEntries(bodiless) };
}

function optionsOf(reference: JsonObject, t: DocumentTexts): JsonObject {
  const kept = Object.entries(reference.responses as JsonObject).filter(([status]) => OPTIONS_STATUSES.has(status));
  return {
    operationId: `${reference.operationId as string}Options`,
    tags: reference.tags,
    summary: t.options,
    description: t.optionsDescription,
    ...(reference.security === undefined ? {} : { security: reference.security }),
    responses: { '204': { $ref: `${RESPONSE_REF}Allowed` }, ...Object.fromEntries(kept) },
  };
}

/** Adds HEAD (except on the paths of `withoutHead`) and OPTIONS to every path of `document`, and the responses they share. */
export function addImplicitOperations(
  document: { paths: Record<string, JsonObject>; components: { responses: Record<string, JsonObject> } },
  t: DocumentTexts,
  withoutHead: ReadonlySet<string> = new Set(),
): void {
  const components = document.components.responses;
  components.Allowed = { description: t.allowed, headers: { Allow: headerRef('Allow') } };
  for (const [path, item] of Object.entries(document.paths)) {
    const get = item.get as JsonObject | undefined;
    const reference = get ?? (METHODS.map((method) => item[method]).find((operation) => operation !== undefined) as JsonObject | undefined);
    if (reference === undefined) continue;
    if (get !== undefined && !withoutHead.has(path)) item.head = headOf(get, t, components);
    item.options = optionsOf(reference, t);
  }
}
