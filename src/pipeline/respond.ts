// Respond step: the result of a plan's execution becomes the HTTP answer. Bodies are JSON
// text made here; an entry's text is made once, for both its tag and the body.
import { ifNoneMatchHolds } from './entity-tag.js';
import type { Result } from './execute.js';
import { shownEntry } from './shown-entry.js';

export interface Outcome {
  status: number;
  /** The body as sent: JSON text unless the headers name another content type. */
  body?: string | Buffer;
  headers?: Record<string, string>;
}

export function respond(result: Result): Outcome {
  const { plan } = result;
  switch (result.action) {
    case 'list': {
      const { items, total } = result;
      return { status: 200, body: JSON.stringify({ items, total, limit: result.plan.list.limit, offset: result.plan.list.offset }) };
    }
    case 'read': {
      const { json, etag } = result.shown;
      const ifNoneMatch = result.plan.ifNoneMatch;
      if (ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, etag)) return { status: 304, headers: { etag } };
      return { status: 200, headers: { etag }, body: `{"item":${json}}` };
    }
    case 'create':
    case 'update': {
      const { entry } = result;
      const { json, etag } = shownEntry(entry);
      const named = `"id":${entry.id},"resource":${JSON.stringify(plan.resource.name)}`;
      if (result.action === 'update') return { status: 200, headers: { etag }, body: `{${named},"updated":true,"item":${json}}` };
      const location = `/${result.plan.lang}/api/config/${plan.resource.name}/${entry.id}`;
      return { status: 201, headers: { location, etag }, body: `{${named},"item":${json}}` };
    }
    case 'delete':
      return { status: 200, body: JSON.stringify({ id: result.plan.id, deleted: true, mode: result.plan.mode }) };
  }
}
