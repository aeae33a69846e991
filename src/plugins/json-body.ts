// Request bodies are JSON and nothing else: dropping Fastify's text/plain parser makes any
// other media type a 415 before a handler runs.
import fp from 'fastify-plugin';

export default fp(
  async (app) => {
    app.removeContentTypeParser('text/plain');
  },
  { name: 'json-body' },
);
