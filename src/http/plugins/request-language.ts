// The language errors are written in, known from the first path segment, so that even a 404
// or 413 answers in French under /fr/. Read from the URL when an error is answered, not by a
// hook on every request: nearly every request answers without one.
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { languageOfUrl, type MessageLanguage } from '../../messages/languages.js';

declare module 'fastify' {
  interface FastifyRequest {
    readonly language: MessageLanguage;
  }
}

export default fp(
  async (app) => {
    app.decorateRequest('language', {
      getter(this: FastifyRequest): MessageLanguage {
        return languageOfUrl(this.url);
      },
    });
  },
  { name: 'request-language' },
);
