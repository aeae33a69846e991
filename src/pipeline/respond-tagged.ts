// A read's answer tagged by the text it sends, for the entries whose shown state moves outside
// their table's version counter (a webhook's health, a token's last use): the tag is the
// text's digest, and If-None-Match gives 304 while the text is the same.
import { ifNoneMatchHolds } from '../store/entity-tag.js';
import type { Outcome } from './respond.js';

/** A GET's answer with its entity tag, or 304 when If-None-Match holds that tag. */
export function tagged(ifNoneMatch: string | undefined, body: string, etag: string): Outcome {
  if (ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, etag)) return { status: 304, headers: { etag } };
  return { status: 200, headers: { etag }, body };
}
