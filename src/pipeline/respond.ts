// Respond step: the result of a plan's execution becomes the HTTP answer. Bodies are JSON
// text made here (a list's comes made, list-page.ts); an entry's text is made once, for both
// its tag and the body. A dry run is
// answered as the real request would be, ids not yet assigned shown as null, and says so in
// the `Dry-Run` header.
import type { Readable } from 'node:stream';
import type { Entry } from '../store/entry-rows.js';
import { entityTagOfJson, shownEntry } from '../store/entity-tag.js';
import { isWebhookAction } from './parse-webhook-request.js';
import type { Result } from './execute.js';
import type { WebhookResult } from './execute-webhooks.js';
import { listBody } from './list-page.js';
import { tagged } from './respond-tagged.js';
import { respondWebhook } from './respond-webhooks.js';
import { respondExport, respondMonitoring } from './respond-streams.js';

export interface Outcome {
  status: number;
  /** The body as sent: JSON text unless the headers name another content type; a stream for
   * an answer written as it is read (contract section 17). */
  body?: string | Buffer | Readable;
  headers?: Record<string, string>;
  /** An answer that a status, headers and a body cannot say: the change stream, written to the
   * connection by hand for as long as it lasts (execute-change-stream.ts). The route factory
   * calls it with the request's connection instead of sending anything; it throws only before
   * it writes a byte, and that error is answered as any endpoint's. */
  handOver?: (connection: StreamConnection) => Promise<void>;
}

/** A request's connection as the HTTP layer holds it: the pipeline passes it on and never looks
 * into it. The HTTP layer says what it is (declaration merging, src/http/change-streams.ts). */
export interface StreamConnection {}

const DRY_RUN = { 'dry-run': 'true' };

/** A created entry of a dry run: the database gave it an id that the rollback took back. */
function unassigned(entry: Entry): Record<string, unknown> {
  return { ...entry, id: null };
}

/** Records as the change log made their texts, in a list. */
function records(result: { readonly records: readonly { readonly json: string }[] }): string {
  return result.records.map((record) => record.json).join(',');
}

export function respond(result: Result): Outcome {
  if (isWebhookAction(result)) return respondWebhook(result);
  switch (result.action) {
    // Tagged by their text, as webhooks are (contract sections 8, 15): a token's last_used_at
    // changes outside the table's version counter.
    case 'list-tokens': {
      const body = listBody(result.plan.list, result.page);
      return tagged(result.plan.ifNoneMatch, body, entityTagOfJson(body));
    }
    case 'read-token': {
      const { json, etag } = shownEntry(result.entry);
      return tagged(result.plan.ifNoneMatch, `{"item":${json}}`, etag);
    }
    case 'issue-token': {
      const { entry, token } = result.issued;
      const { json, etag } = shownEntry(entry);
      return {
        status: 201,
        // The one answer that carries the secret: no cache may keep it.
        headers: { location: `/${result.plan.lang}/api/tokens/${entry.id}`, etag, 'cache-control': 'no-store' },
        body: `{"id":${entry.id},"token":${JSON.stringify(token)},"item":${json}}`,
      };
    }
    case 'revoke-token':
      return { status: 200, body: JSON.stringify({ id: result.plan.id, deleted: true, mode: 'hard' }) };
    case 'changes': {
      // The `since` of the next page: where this one ends, or where it started if it is empty
      // (a poller then asks again from the same place).
      const next = result.records.length === 0 ? result.plan.query.since : result.records[result.records.length - 1]!.id;
      return { status: 200, body: `{"items":[${records(result)}],"next":${next}}` };
    }
    case 'history': {
      const { limit, offset } = result.plan;
      return { status: 200, body: `{"items":[${records(result)}],"total":${result.total},"limit":${limit},"offset":${offset}}` };
    }
    case 'monitoring-targets':
      return respondMonitoring(result);
    case 'export':
      return respondExport(result);
    case 'change-stream':
      return { status: 200, handOver: result.open };
    case 'apply':
      // The configuration's tag after the apply: the If-Match of the next one.
      return { status: 200, headers: { etag: result.etag, ...(result.plan.dryRun ? DRY_RUN : {}) }, body: JSON.stringify(result.applied) };
    default:
      return respondEntries(result);
  }
}

/** The results respond() answers itself, before the entries'. */
type OwnResults = 'list-tokens' | 'read-token' | 'issue-token' | 'revoke-token' | 'changes' | 'history' | 'monitoring-targets' | 'export' | 'apply' | 'change-stream';

function respondEntries(result: Exclude<Result, { readonly action: OwnResults | WebhookResult['action'] }>): Outcome {
  const { plan } = result;
  switch (result.action) {
    case 'list':
      return { status: 200, headers: { etag: result.etag }, body: result.body };
    case 'list unchanged':
      return { status: 304, headers: { etag: result.etag } };
    case 'read':
      return tagged(result.plan.ifNoneMatch, result.answer.body, result.answer.etag);
    case 'create': {
      if (result.plan.dryRun) return { status: 201, headers: DRY_RUN, body: JSON.stringify({ id: null, resource: plan.resource.name, item: unassigned(result.entry) }) };
      const { json, etag } = shownEntry(result.entry);
      const location = `/${result.plan.lang}/api/config/${plan.resource.name}/${result.entry.id}`;
      return { status: 201, headers: { location, etag }, body: `{"id":${result.entry.id},"resource":${JSON.stringify(plan.resource.name)},"item":${json}}` };
    }
    case 'update':
    case 'restore': {
      const { json, etag } = shownEntry(result.entry);
      const done = result.action === 'update' ? '"updated":true' : '"restored":true';
      return { status: 200, headers: { etag, ...(result.plan.dryRun ? DRY_RUN : {}) }, body: `{"id":${result.entry.id},"resource":${JSON.stringify(plan.resource.name)},${done},"item":${json}}` };
    }
    case 'delete':
      return { status: 200, headers: result.plan.dryRun ? DRY_RUN : {}, body: JSON.stringify({ id: result.plan.id, deleted: true, mode: result.plan.mode }) };
    case 'bulk': {
      const { operation, entries, dryRun } = result.plan;
      const headers = dryRun ? DRY_RUN : {};
      const count = entries.length;
      if (operation === 'delete') {
        const deleted = entries.map((entry) => ({ id: entry.id, mode: entry.action === 'delete' ? entry.mode : plan.resource.deletion.mode }));
        return { status: 200, headers, body: JSON.stringify({ resource: plan.resource.name, count, deleted }) };
      }
      const items = result.entries.map((entry) => (operation === 'create' && dryRun ? unassigned(entry!) : entry));
      return { status: operation === 'create' ? 201 : 200, headers, body: JSON.stringify({ resource: plan.resource.name, count, items }) };
    }
  }
}
