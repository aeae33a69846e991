// Bearer-token access control (contract section 9): with tokens configured, a request
// without a valid one is 401, and a write with a read token is 403. Runs before routing,
// so that an anonymous caller cannot probe which paths exist.
import fp from 'fastify-plugin';
import { bearerToken, scopeOf, type ApiToken } from '../../auth/api-tokens.js';
import { isPublicPath } from '../../auth/public-paths.js';
import { ApiError } from '../../errors/api-error.js';
import { message } from '../../messages/messages.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const REALM = 'Bearer realm="config-api"';

function unauthorized(invalid: boolean): ApiError {
  const challenge = invalid ? `${REALM}, error="invalid_token"` : REALM;
  return new ApiError('UNAUTHORIZED', message(invalid ? 'auth.invalid' : 'auth.missing'), [], { 'www-authenticate': challenge });
}

export default fp<{ tokens: readonly ApiToken[] }>(
  async (app, { tokens }) => {
    if (tokens.length === 0) return;
    app.addHook('onRequest', async (request) => {
      if (isPublicPath(request.url)) return;
      const header = request.headers.authorization;
      const presented = bearerToken(header);
      const scope = presented === undefined ? undefined : scopeOf(tokens, presented);
      if (scope === undefined) throw unauthorized(presented !== undefined || header !== undefined);
      if (scope === 'read' && !READ_METHODS.has(request.method)) {
        throw new ApiError('FORBIDDEN', message('auth.readOnly', { method: request.method }));
      }
    });
  },
  { name: 'authentication', dependencies: ['problem-responses'] },
);
