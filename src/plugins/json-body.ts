// Request bodies are JSON and nothing else: any other media type has no parser, so Fastify
// refuses it (415) before a handler runs. Parsing is ours so that each refusal says why.
import fp from 'fastify-plugin';
import secureJson from 'secure-json-parse';
import { apiError } from '../http/api-error.js';

function parseJson(text: string): unknown {
  if (text.trim() === '') throw apiError('MALFORMED_JSON', 'body.empty');
  try {
    // Prototype-polluting keys are refused outright rather than silently dropped.
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const forbidden = error instanceof SyntaxError && /forbidden prototype/i.test(error.message);
    throw apiError('MALFORMED_JSON', forbidden ? 'body.forbiddenKey' : 'body.malformed');
  }
}

export default fp(
  async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseJson(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
  },
  { name: 'json-body' },
);
