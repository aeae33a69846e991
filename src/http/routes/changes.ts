// The change log's read endpoints (contract section 13): `/changes`, the records after
// `since`, oldest first, and `/config/{resource}/{id}/history`, one entry's records, newest
// first, which still answers after the entry is gone for good. Record texts are made by the
// change log (src/store/change-log.ts); here they are only put in a list.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { entryNotFound } from '../../errors/api-error.js';
import { parseChangeQuery, parseHistoryQuery } from '../../pipeline/parse-change-query.js';
import type { RequestTarget } from '../../pipeline/request-target.js';
import type { Outcome } from '../../pipeline/respond.js';
import changeStreamRoute, { type ChangeStreamSettings } from './change-stream.js';
import { endpointRoute } from './endpoint-route.js';

export default async function changeRoutes(app: FastifyInstance, options: ChangeStreamSettings): Promise<void> {
  const { store, registry } = app;
  const log = store.changeLog;

  async function changes(request: FastifyRequest): Promise<Outcome> {
    const { since, filter, limit } = parseChangeQuery(registry, request.query as Record<string, unknown>);
    const records = await log.after(since, filter, limit);
    // The `since` of the next page: where this one ends, or where it started if it is empty
    // (a poller then asks again from the same place).
    const next = records.length === 0 ? since : records[records.length - 1]!.id;
    return { status: 200, body: `{"items":[${records.map((record) => record.json).join(',')}],"next":${next}}` };
  }

  async function history(target: RequestTarget, request: FastifyRequest): Promise<Outcome> {
    const { limit, offset } = parseHistoryQuery(request.query as Record<string, unknown>);
    const resource = target.resource!;
    const id = target.id!;
    const { records, total } = await log.history(resource, id, limit, offset);
    // No record: the entry may still be there (a built-in row, or one made before the log).
    if (total === 0 && (await store.read(resource, id)) === undefined) throw entryNotFound(resource.name, id);
    return { status: 200, body: `{"items":[${records.map((record) => record.json).join(',')}],"total":${total},"limit":${limit},"offset":${offset}}` };
  }

  const handle = (target: RequestTarget, request: FastifyRequest): Promise<Outcome> =>
    target.endpoint === 'history' ? history(target, request) : changes(request);
  endpointRoute(app, registry, '/:lang/api/changes', 'changes', handle);
  endpointRoute(app, registry, '/:lang/api/config/:resource/:id/history', 'history', handle);
  await changeStreamRoute(app, options);
}
