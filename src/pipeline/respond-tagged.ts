// A read's answer with its entity tag, or 304 while If-None-Match holds that tag: an entry read
// through the caches (its tag kept with it), and the answers tagged by the text they send, for
// what moves outside a table's version counter (a webhook's health, a token's last use).
import { ifNoneMatchHolds } from '../store/entity-tag.js';
import type { Outcome } from './respond.js';

/** A GET's answer with its entity tag, or 304 when If-None-Match holds that tag. */
export function tagged(ifNoneMatch: string | undefined, body: string | Buffer, etag: string): Outcome {
  if (ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, etag)) return { status: 304, headers: { etag } };
  return { status: 200, headers: { etag }, body };
}
