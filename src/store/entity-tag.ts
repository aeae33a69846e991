// Entity tags (contract section 8), and an entry as responses show it: its JSON text, made
// once, and the tag computed over that very text (so the tag and the body can never
// disagree). In the store, whose entries they tag: a write's If-Match is plain data of its
// step, which the store checks against the entry it has locked (refuseUnlessIfMatchHolds); the pipeline
// tags its answers with the same functions. A strong tag is derived from the entry as it is shown, so any change to any
// field gives a new tag, even within one millisecond. The tag is the SHA-256 of the entry's
// JSON text, cut to 128 bits: a native digest of a few hundred characters costs less than any
// hash written in JavaScript.
import * as crypto from 'node:crypto';
import { apiError } from '../errors/api-error.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { Entry } from './entry-rows.js';
import type { ListQuery } from './list-query.js';

// The one-shot digest (Node 20.12 and later) makes no Hash object, which is cheaper
// (docs/performance.md, "Figures behind the code").
const sha256: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'base64url') : (text) => crypto.createHash('sha256').update(text).digest('base64url');

/** The tag of an entry whose JSON text is at hand: the text a response carries anyway. */
export function entityTagOfJson(entryJson: string): string {
  return `"${sha256(entryJson).slice(0, 22)}"`;
}

export function entityTag(entry: object): string {
  return entityTagOfJson(JSON.stringify(entry));
}

export interface ShownEntry {
  /** The entry's JSON text, as in `{"item": …}`. */
  readonly json: string;
  readonly etag: string;
}

export function shownEntry(entry: Entry): ShownEntry {
  const json = JSON.stringify(entry);
  return { json, etag: entityTagOfJson(json) };
}

/** GET by id's answer: the body, `{"item": …}`, and the entity tag. Text as read; the entry
 * cache keeps it encoded (EntryCache.fill): a cached entry is sent many times, and as bytes
 * no string is joined, flattened and encoded again for each. */
export interface ReadAnswer {
  readonly body: string | Buffer;
  readonly etag: string;
}

/** GET by id's answer as read from the database: its body as text. */
export interface ReadAnswerText extends ReadAnswer {
  readonly body: string;
}

export function readAnswer(entry: Entry): ReadAnswerText {
  const { json, etag } = shownEntry(entry);
  return { body: `{"item":${json}}`, etag };
}

// Changed whenever list answers change shape, so that tags given by an older release never match.
const LIST_FORMAT = 'list 2';

// The last tag of each list query object: a poll of a URL whose parsed query is reused
// (parseListQueryOf) skips the normalising and the digest while the table's version stays.
// List queries are never changed once parsed. A memo of the pipeline, not a fact of the
// compiled registry: it hangs on a parsed request and a table version, not on a resource.
const tagsOfLists = new WeakMap<ListQuery, { readonly resource: ResourceDefinition; readonly version: string; readonly tag: string }>();

/**
 * The tag of a list answer: the table's change counter (moved by every transaction that
 * changes the table) and the query, normalised (filters in a fixed order). Known before the
 * list is read, so an unchanged list costs one row read. Any write to the table changes the
 * tags of all its lists, even those it does not show: a poll then reads the list once more.
 */
export function listTag(resource: ResourceDefinition, version: string, list: ListQuery): string {
  const known = tagsOfLists.get(list);
  if (known !== undefined && known.version === version && known.resource === resource) return known.tag;
  const tag = computeListTag(resource, version, list);
  tagsOfLists.set(list, { resource, version, tag });
  return tag;
}

function computeListTag(resource: ResourceDefinition, version: string, list: ListQuery): string {
  const normalised = {
    ...list,
    filters: [...list.filters].sort((a, b) => (a.column < b.column ? -1 : a.column > b.column ? 1 : 0)),
    linkFilters: list.linkFilters.map((filter) => `${filter.link.table}:${filter.id}`).sort(),
  };
  return entityTagOfJson(`${LIST_FORMAT}\n${resource.table}\n${version}\n${JSON.stringify(normalised)}`);
}

function listedTags(header: string): string[] {
  return header.split(',').map((tag) => tag.trim()).filter(Boolean);
}

/** If-Match uses the strong comparison: a weak tag never matches (RFC 9110, 13.1.1). */
export function ifMatchHolds(header: string, current: string): boolean {
  return listedTags(header).some((tag) => tag === '*' || tag === current);
}

/** If-Match on a write (contract section 8), checked against the entry the write has locked
 * (StoreTransaction.lockExisting): throws 412 when no tag listed is the entry's; nothing when
 * the request sent none (`header` undefined). */
export function refuseUnlessIfMatchHolds(header: string | undefined, current: Entry): void {
  if (header !== undefined && !ifMatchHolds(header, entityTag(current))) throw apiError('PRECONDITION_FAILED', 'precondition.failed');
}

/** If-None-Match uses the weak comparison: W/ is ignored (RFC 9110, 13.1.2). */
export function ifNoneMatchHolds(header: string, current: string): boolean {
  // What a client that polls sends: the one tag it was given.
  if (header === current) return false;
  const weakless = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);
  return !listedTags(header).some((tag) => tag === '*' || weakless(tag) === current);
}
