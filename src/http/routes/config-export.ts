// `GET /{lang}/api/export` (contract section 18): the whole configuration as one document, read
// with a `read` token like every GET. JSON, or YAML when `?format=yaml` asks for it or, without
// the parameter, when Accept prefers application/yaml to application/json.
//
// The snapshot is begun, and its change id read, before the answer starts: a database that
// cannot be reached then is still a clean 503 problem+json. Past that point the status line is
// sent and the body streams; a failure can only cut the connection (the body then ends without
// its last chunk: the client sees a truncated, unparsable document, never a short valid one).
// The body is a byte stream with back-pressure, as the monitoring answers (integrations.ts):
// the next batch is read only once the socket took the one before; the heavy-work slot is held
// until the last byte is written or the connection is gone, and the snapshot is closed then.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { configurationDocument, type ExportFormat } from '../../pipeline/configuration-export.js';
import type { HeavyWorkGate } from '../../pipeline/heavy-work-gate.js';
import type { ConfigurationSnapshot } from '../../store/configuration-snapshot.js';
import { DOCUMENT_CONTENT_TYPES } from '../../openapi/served-documents.js';
import { endpointRoute } from './endpoint-route.js';
import { documentFormat } from './openapi.js';

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml']);

/** The format Accept prefers: YAML only when it weighs a YAML type above JSON (a wildcard
 * counts for JSON, the default). */
function acceptedFormat(accept: string | undefined): ExportFormat {
  if (accept === undefined) return 'json';
  let json = 0;
  let yaml = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = Number(parameters.find((parameter) => parameter.startsWith('q='))?.slice(2) ?? '1');
    const weight = Number.isFinite(q) ? q : 0;
    if (YAML_TYPES.has(type)) yaml = Math.max(yaml, weight);
    else if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, weight);
  }
  return yaml > json ? 'yaml' : 'json';
}

/** The document's chunks; the snapshot is closed when they end, fail or are abandoned. */
async function* chunksOf(snapshot: ConfigurationSnapshot, document: AsyncGenerator<string>): AsyncGenerator<string> {
  try {
    yield* document;
  } finally {
    await snapshot.close();
  }
}

export default async function configExportRoutes(app: FastifyInstance, { heavyWork }: { heavyWork: HeavyWorkGate }): Promise<void> {
  const { store, registry } = app;

  async function answer(request: FastifyRequest) {
    const query = request.query as Record<string, unknown>;
    const asked = documentFormat(query);
    const format = query.format === undefined ? acceptedFormat(request.headers.accept) : asked;
    const headers = { 'content-type': DOCUMENT_CONTENT_TYPES[format], vary: 'Accept' };
    if (request.method === 'HEAD') return { status: 200, headers };
    const release = await heavyWork.hold();
    let snapshot: ConfigurationSnapshot | undefined;
    try {
      snapshot = await store.configurationSnapshot(registry);
      // Strings, not Buffers, to the socket (integrations.ts says why).
      const body = Readable.from(chunksOf(snapshot, configurationDocument(snapshot, registry, format)));
      body.once('close', release);
      return { status: 200, headers: { ...headers, 'change-id': String(snapshot.changeId) }, body };
    } catch (error) {
      await snapshot?.close();
      release();
      throw error;
    }
  }

  endpointRoute(app, registry, '/:lang/api/export', 'configurationExport', (_target, request) => answer(request));
}
