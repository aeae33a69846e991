// Apply, first step (contract section 18): a configuration document is read before any
// database work. Its shape, its resources, its entries' fields and natural keys, and two
// entries with one key are all checked here, so that a document that cannot be applied is
// refused whole, every place named at once (`servers[12].ip`), without opening a transaction.
// What needs the store (references, values against stored entries) is checked by apply.ts.
import type { FieldProblem } from '../errors/api-error.js';
import { message } from '../messages/messages.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import { isManaged } from '../registry/managed-fields.js';
import { naturalKeyText } from '../registry/natural-key-text.js';
import type { Registry } from '../registry/registry.js';
import { fieldNamed } from '../registry/resource-definition.js';

/** The version of the document this service writes and reads. */
export const DOCUMENT_VERSION = 1;

export interface DocumentEntry {
  /** Its position in its resource's list. */
  readonly index: number;
  /** Its place in the document: `servers[12]`. */
  readonly at: string;
  /** Its fields as sent, the ones the service manages (ids, timestamps) left out. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Its natural key as one text (natural-key-text.ts). */
  readonly key: string;
}

export interface DocumentSection {
  readonly resource: CompiledResource;
  readonly entries: readonly DocumentEntry[];
  /** The natural keys of its entries. */
  readonly keys: ReadonlySet<string>;
}

export interface ReadDocument {
  /** By resource name, for the resources the document holds. */
  readonly sections: ReadonlyMap<string, DocumentSection>;
  readonly problems: FieldProblem[];
}

/** Members of the document that are not resources: its version, and the change id an export
 * writes (read by people; an apply is guarded by If-Match instead). */
const HEADER_MEMBERS = new Set(['version', 'change_id']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function problemAt(at: string, field: string, key: Parameters<typeof message>[0], params?: Parameters<typeof message>[1]): FieldProblem {
  return { field, message: message(key, params), at };
}

export async function readDocument(registry: Registry, document: unknown): Promise<ReadDocument> {
  const sections = new Map<string, DocumentSection>();
  const problems: FieldProblem[] = [];
  if (!isPlainObject(document)) return { sections, problems: [problemAt('', '', 'apply.document')] };
  for (const [name, value] of Object.entries(document)) {
    if (HEADER_MEMBERS.has(name)) {
      if (name === 'version' && value !== DOCUMENT_VERSION) problems.push(problemAt(name, name, 'apply.version'));
      continue;
    }
    const resource = registry.find(name);
    if (resource?.naturalKey === undefined) {
      problems.push(problemAt(name, name, 'apply.unknownResource'));
      continue;
    }
    if (!Array.isArray(value)) {
      problems.push(problemAt(name, name, 'apply.notList'));
      continue;
    }
    sections.set(name, await readSection(resource, value, problems));
  }
  return { sections, problems };
}

async function readSection(resource: CompiledResource, items: readonly unknown[], problems: FieldProblem[]): Promise<DocumentSection> {
  const entries: DocumentEntry[] = [];
  const placeOfKey = new Map<string, string>();
  for (const [index, item] of items.entries()) {
    const at = `${resource.name}[${index}]`;
    if (!isPlainObject(item)) {
      problems.push(problemAt(at, '', 'apply.notEntry'));
      continue;
    }
    const body: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(item)) {
      // Only the resource's own fields: a PATCH's add_tags has no meaning in a document.
      if (fieldNamed(resource, name) === undefined && !isManaged(resource, name)) problems.push(problemAt(`${at}.${name}`, name, 'field.unknown'));
      else if (!isManaged(resource, name)) body[name] = value;
    }
    const key = await naturalKeyOf(resource, body, at, problems);
    if (key === undefined) continue;
    const other = placeOfKey.get(key);
    if (other !== undefined) {
      problems.push(problemAt(at, '', 'apply.duplicateKey', { other }));
      continue;
    }
    placeOfKey.set(key, at);
    entries.push({ index, at, body, key });
  }
  return { resource, entries, keys: new Set(placeOfKey.keys()) };
}

/** The entry's natural key as one text: its key fields, in canonical form; a field left out
 * takes its default (a server's port), or is derived by the resource's rule (an SSH key's
 * fingerprint from its pub). Undefined, with the problems, when it cannot be told. */
async function naturalKeyOf(resource: CompiledResource, body: Record<string, unknown>, at: string, problems: FieldProblem[]): Promise<string | undefined> {
  const values: Record<string, unknown> = {};
  const missing: string[] = [];
  let valid = true;
  for (const name of resource.naturalKey!) {
    const field = resource.fields[name]!;
    const raw = body[name];
    if (raw === undefined) {
      if ('default' in field) values[name] = field.default;
      else missing.push(name);
      continue;
    }
    const value = typeof raw === 'string' ? raw.trim() : raw;
    if (field.type.check(value)) values[name] = field.type.normalise(value);
    else {
      problems.push({ field: name, message: field.type.expectation, at: `${at}.${name}` });
      valid = false;
    }
  }
  if (!valid) return undefined;
  if (missing.length > 0 && resource.rule !== undefined) {
    const derived: Record<string, unknown> = Object.fromEntries(Object.entries(body).map(([name, value]) => [name, typeof value === 'string' ? value.trim() : value]));
    const ruleProblems = await resource.rule(derived, { sent: new Set(Object.keys(body)), storedSecret: () => Promise.resolve(undefined) });
    for (const name of [...missing]) {
      const field = resource.fields[name]!;
      if (derived[name] !== undefined && field.type.check(derived[name])) {
        values[name] = field.type.normalise(derived[name]);
        missing.splice(missing.indexOf(name), 1);
      }
    }
    if (missing.length > 0) {
      problems.push(...ruleProblems.map((problem) => ({ ...problem, at: `${at}.${problem.field}` })));
      return undefined;
    }
  }
  if (missing.length > 0) {
    problems.push(...missing.map((name) => problemAt(`${at}.${name}`, name, 'field.required')));
    return undefined;
  }
  return naturalKeyText(resource, values);
}
