// An entry's natural key written as one text (contract section 18): the `key` of an apply
// plan's change, and a reference in the configuration document (a server as "10.0.0.5:3306").
// Stated here once so that export writes and apply reads the same form. The key's values are
// joined by ':'. Reading splits at the last colons, so only the first value may hold a colon
// itself: an IPv6 address does ("2001:db8::5:3306" is that address and port 3306).
import { fieldNamed, type ResourceDefinition } from './resource-definition.js';

/** The natural key of `entry` as one text; undefined for a resource without one. */
export function naturalKeyText(resource: ResourceDefinition, entry: Readonly<Record<string, unknown>>): string | undefined {
  return resource.naturalKey?.map((name) => String(entry[name])).join(':');
}

/** The key values a text names, typed as the fields hold them (an integer field's part read as
 * a number), or undefined when the text has too few parts or a part is not a valid value. */
export function parseNaturalKeyText(resource: ResourceDefinition, text: string): Record<string, unknown> | undefined {
  const names = resource.naturalKey;
  if (names === undefined) return undefined;
  const parts: string[] = [];
  let rest = text;
  for (let index = names.length - 1; index > 0; index -= 1) {
    const colon = rest.lastIndexOf(':');
    if (colon < 0) return undefined;
    parts.unshift(rest.slice(colon + 1));
    rest = rest.slice(0, colon);
  }
  parts.unshift(rest);
  const key: Record<string, unknown> = {};
  for (const [index, name] of names.entries()) {
    const type = fieldNamed(resource, name)?.type;
    const part = parts[index] as string;
    const value = (type?.input as { type?: unknown } | undefined)?.type === 'integer' && /^[0-9]+$/.test(part) ? Number(part) : part;
    if (type === undefined || !type.check(value)) return undefined;
    key[name] = type.normalise(value);
  }
  return key;
}
