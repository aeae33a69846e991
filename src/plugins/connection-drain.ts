// While the app stops, a keep-alive connection that carried a request in flight would stay
// open after the answer until its client or keepAliveTimeout (72 s) ends it, and the stop
// would wait for it until the grace period runs out. So answers sent while stopping say
// Connection: close, and a connection left idle by an answer is closed at once.
import fp from 'fastify-plugin';

export default fp(
  async (app) => {
    let draining = false;
    app.addHook('preClose', async () => {
      draining = true;
    });
    app.addHook('onSend', async (_request, reply) => {
      if (draining) reply.header('connection', 'close');
    });
    app.addHook('onResponse', async () => {
      if (draining) app.server.closeIdleConnections();
    });
  },
  { name: 'connection-drain' },
);
