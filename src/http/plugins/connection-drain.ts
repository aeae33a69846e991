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
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (draining) reply.header('connection', 'close');
      done(null, payload);
    });
    app.addHook('onResponse', (_request, _reply, done) => {
      if (draining) app.server.closeIdleConnections();
      done();
    });
  },
  { name: 'connection-drain' },
);
