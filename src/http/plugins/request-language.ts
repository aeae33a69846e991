// The language errors are written in, known from the first path segment before routing,
// so that even a 404 or 413 answers in French under /fr/.
import fp from 'fastify-plugin';
import { languageOfUrl, type MessageLanguage } from '../../messages/languages.js';

declare module 'fastify' {
  interface FastifyRequest {
    language: MessageLanguage;
  }
}

export default fp(
  async (app) => {
    app.decorateRequest('language', 'en');
    // Callback-style hooks here and in the other per-request plugins: an async hook costs a
    // promise and a microtask on every request.
    app.addHook('onRequest', (request, _reply, done) => {
      request.language = languageOfUrl(request.url);
      done();
    });
  },
  { name: 'request-language' },
);
