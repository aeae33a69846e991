// Request bodies are JSON and nothing else: any other media type has no parser, so Fastify
// refuses it (415) before a handler runs. Parsing is ours so that each refusal says why.
import { isUtf8 } from 'node:buffer';
import fp from 'fastify-plugin';
import secureJson from 'secure-json-parse';
import { apiError } from '../../errors/api-error.js';
import { inspectJsonText } from '../json-text-inspection.js';
import { holdsLoneSurrogate } from '../lone-surrogates.js';

/** Far deeper than any body of this API (flat objects), far shallower than a stack. */
const MAX_DEPTH = 32;

function parseJson(bytes: Buffer): unknown {
  // JSON is UTF-8 (RFC 8259); decoding other bytes would silently turn them into U+FFFD.
  if (!isUtf8(bytes)) throw apiError('MALFORMED_JSON', 'body.encoding');
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw apiError('MALFORMED_JSON', 'body.empty');
  const verdict = inspectJsonText(text, MAX_DEPTH);
  if (verdict === 'too-deep') throw apiError('MALFORMED_JSON', 'body.tooDeep', { depth: MAX_DEPTH });
  if (verdict === 'duplicate-key') throw apiError('MALFORMED_JSON', 'body.duplicateKey');
  let value: unknown;
  try {
    // Prototype-polluting keys are refused outright rather than silently dropped.
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const forbidden = error instanceof SyntaxError && /forbidden prototype/i.test(error.message);
    throw apiError('MALFORMED_JSON', forbidden ? 'body.forbiddenKey' : 'body.malformed');
  }
  if (holdsLoneSurrogate(text, value)) throw apiError('MALFORMED_JSON', 'body.loneSurrogate');
  return value;
}

export default fp(
  async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
      try {
        done(null, parseJson(body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
  },
  { name: 'json-body' },
);
