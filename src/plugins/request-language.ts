// The language errors are written in, known from the first path segment before routing,
// so that even a 404 or 413 answers in French under /fr/.
import fp from 'fastify-plugin';
import { languageOfUrl, type MessageLanguage } from '../http/languages.js';

declare module 'fastify' {
  interface FastifyRequest {
    language: MessageLanguage;
  }
}

export default fp(
  async (app) => {
    app.decorateRequest('language', 'en');
    app.addHook('onRequest', async (request) => {
      request.language = languageOfUrl(request.url);
    });
  },
  { name: 'request-language' },
);
