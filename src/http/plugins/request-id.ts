// Echoes the request id (taken from X-Request-Id when the caller sent a sane one) so that a
// caller can find its request in the logs.
import fp from 'fastify-plugin';

export default fp(
  async (app) => {
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-request-id', request.id);
      done(null, payload);
    });
  },
  { name: 'request-id' },
);
