// Execute step of `GET /{lang}/api/export` (contract section 18). The snapshot is begun, and
// its change id read, before the answer starts: a database that cannot be reached then is
// still a clean 503 problem+json. Past that point the status line is sent and the body
// streams (respond-streams.ts); a failure can only cut the connection (the body then ends
// without its last chunk: the client sees a truncated, unparsable document, never a short
// valid one). The heavy-work slot is held until the last byte is written or the connection is
// gone, and the snapshot is closed then.
import type { Registry } from '../registry/registry.js';
import type { ConfigurationSnapshot } from '../store/configuration-snapshot.js';
import type { ResourceStore } from '../store/resource-store.js';
import { configurationDocument } from './configuration-export.js';
import { DOCUMENT_CONTENT_TYPES } from './document-format.js';
import type { HeavyWorkGate } from './heavy-work-gate.js';
import type { ExportPlan } from './plan.js';

export interface ExportContext {
  readonly store: ResourceStore;
  readonly registry: Registry;
  readonly heavyWork?: HeavyWorkGate;
}

export type ExportResult =
  | { readonly action: 'export'; readonly plan: ExportPlan; readonly contentType: string; readonly answer: 'headers' }
  | {
      readonly action: 'export';
      readonly plan: ExportPlan;
      readonly contentType: string;
      readonly answer: 'body';
      readonly changeId: number;
      readonly chunks: AsyncIterable<string>;
      /** Gives back the heavy-work slot: once the answer is written or abandoned. */
      readonly release: () => void;
    };

/** The document's chunks; the snapshot is closed when they end, fail or are abandoned. */
async function* chunksOf(snapshot: ConfigurationSnapshot, document: AsyncGenerator<string>): AsyncGenerator<string> {
  try {
    yield* document;
  } finally {
    await snapshot.close();
  }
}

export async function executeExportPlan(context: ExportContext, plan: ExportPlan): Promise<ExportResult> {
  const contentType = DOCUMENT_CONTENT_TYPES[plan.format];
  if (plan.headersOnly) return { action: plan.action, plan, contentType, answer: 'headers' };
  const release = context.heavyWork === undefined ? () => undefined : await context.heavyWork.hold();
  let snapshot: ConfigurationSnapshot | undefined;
  try {
    snapshot = await context.store.configurationSnapshot(context.registry);
    const chunks = chunksOf(snapshot, configurationDocument(snapshot, context.registry, plan.format));
    return { action: plan.action, plan, contentType, answer: 'body', changeId: snapshot.changeId, chunks, release };
  } catch (error) {
    await snapshot?.close();
    release();
    throw error;
  }
}
