// An entry as responses show it: its JSON text, made once, and the entity tag computed over
// that very text (so the tag and the body can never disagree).
import type { Entry } from '../store/entry-rows.js';
import { entityTagOfJson } from './entity-tag.js';

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
