// Entity tags of single entries (contract section 8). A strong tag is derived from the entry
// as it is shown, so any change to any field gives a new tag, even within one millisecond.
// The tag is the SHA-256 of the entry's JSON text, cut to 128 bits: a native digest of a few
// hundred characters costs about a microsecond, less than any hash written in JavaScript.
import { createHash } from 'node:crypto';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { ListQuery } from '../store/list-query.js';

/** The tag of an entry whose JSON text is at hand: the text a response carries anyway. */
export function entityTagOfJson(entryJson: string): string {
  return `"${createHash('sha256').update(entryJson).digest('base64url').slice(0, 22)}"`;
}

export function entityTag(entry: object): string {
  return entityTagOfJson(JSON.stringify(entry));
}

// Changed whenever list answers change shape, so that tags given by an older release never match.
const LIST_FORMAT = 'list 2';

/**
 * The tag of a list answer: the table's change counter (moved by every transaction that
 * changes the table) and the query, normalised (filters in a fixed order). Known before the
 * list is read, so an unchanged list costs one row read. Any write to the table changes the
 * tags of all its lists, even those it does not show: a poll then reads the list once more.
 */
export function listTag(resource: ResourceDefinition, version: string, list: ListQuery): string {
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

/** If-None-Match uses the weak comparison: W/ is ignored (RFC 9110, 13.1.2). */
export function ifNoneMatchHolds(header: string, current: string): boolean {
  const weakless = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);
  return !listedTags(header).some((tag) => tag === '*' || weakless(tag) === current);
}
