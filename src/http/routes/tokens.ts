// The token endpoints (contract section 14), for admin tokens only (`config.admin`, which the
// authorization hook reads): POST creates a token and shows its secret once, GET lists and
// reads tokens without it, DELETE revokes one, at once in this process and within about a
// second in every other instance on the database (src/store/token-sync.ts). Creations and
// revocations are in the change log (resource `tokens`), under the admin token's name.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../../errors/api-error.js';
import { issueToken } from '../../pipeline/issue-token.js';
import { encodeCursor } from '../../pipeline/list-cursor.js';
import { parseListQuery } from '../../pipeline/parse-list-query.js';
import { refuseQuery } from '../../pipeline/parse-request.js';
import type { RequestTarget } from '../../pipeline/request-target.js';
import type { Outcome } from '../../pipeline/respond.js';
import { API_TOKENS } from '../../store/api-token-definition.js';
import { endpointRoute } from './endpoint-route.js';

export default async function tokenRoutes(app: FastifyInstance): Promise<void> {
  const sync = app.tokens;
  const { store } = sync;
  const notFound = (id: number) => apiError('NOT_FOUND', 'entry.notFound', { id, resource: API_TOKENS.name });

  async function serve(target: RequestTarget, request: FastifyRequest): Promise<Outcome> {
    const query = request.query as Record<string, unknown>;
    if (target.endpoint === 'tokens' && request.method !== 'POST') {
      const list = parseListQuery(API_TOKENS, query);
      const { items, total, totalExact, nextAfter } = await store.entries.list(API_TOKENS, list);
      const next = nextAfter === undefined ? null : encodeCursor(list.sort, nextAfter);
      const shown = items.map((entry) => sync.withLastUse(entry));
      return { status: 200, body: JSON.stringify({ items: shown, total, total_exact: totalExact, limit: list.limit, offset: list.offset, next }) };
    }
    refuseQuery(query);
    // Set by the authorization hook on every request that reaches a route.
    const author = { actor: request.caller!.name, requestId: request.id };
    if (target.endpoint === 'tokens') {
      const { entry, token, digest } = await issueToken(store, app.tokenDigester, request.body, app.tokenIndex.environmentNames, author);
      sync.issued(entry, digest);
      return {
        status: 201,
        // The one answer that carries the secret: no cache may keep it.
        headers: { location: `/${target.lang}/api/tokens/${entry.id}`, 'cache-control': 'no-store' },
        body: JSON.stringify({ id: entry.id, token, item: entry }),
      };
    }
    const id = target.id!;
    if (request.method === 'DELETE') {
      if (!(await store.revoke(id, author))) throw notFound(id);
      sync.revoked(id);
      return { status: 200, body: JSON.stringify({ id, deleted: true, mode: 'hard' }) };
    }
    const entry = await store.entries.read(API_TOKENS, id);
    if (entry === undefined) throw notFound(id);
    return { status: 200, body: JSON.stringify({ item: sync.withLastUse(entry) }) };
  }

  endpointRoute(app, app.registry, '/:lang/api/tokens', 'tokens', serve, { admin: true });
  endpointRoute(app, app.registry, '/:lang/api/tokens/:id', 'token', serve, { admin: true });
}
