// `GET /{lang}/api/export` (contract section 18): the configuration document written as text,
// resource by resource in dependency order (a resource after those it references, as an
// apply creates them), each resource's entries a batch at a time as the snapshot reads them.
// JSON puts one entry on a line and YAML one field on a line, so that a document kept in git
// shows a change as the lines of the entries it touched.
import { stringify } from 'yaml';
import type { Registry } from '../registry/registry.js';
import type { ConfigurationSnapshot, DocumentEntry } from '../store/configuration-snapshot.js';
import { CHUNK_CHARS } from './monitoring-query.js';

export type ExportFormat = 'json' | 'yaml';

/** Entries read per batch: a batch and its text stay well under a megabyte. */
export const EXPORT_BATCH = 2000;

/** The document's version, which a later shape would change. */
export const DOCUMENT_VERSION = 1;

// Every string quoted where plain text would read as another type ("yes", "0123", "null"),
// the colours' '#' included; no line folding, no anchors.
const YAML_OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false } as const;

interface Writer {
  readonly head: (changeId: number) => string;
  readonly open: (name: string, first: boolean) => string;
  readonly entries: (entries: readonly DocumentEntry[], first: boolean) => string;
  readonly close: (empty: boolean) => string;
  readonly tail: string;
}

const JSON_WRITER: Writer = {
  head: (changeId) => `{\n  "version": ${DOCUMENT_VERSION},\n  "change_id": ${changeId}`,
  open: (name) => `,\n  ${JSON.stringify(name)}: [`,
  entries: (entries, first) => {
    let text = '';
    for (let i = 0; i < entries.length; i++) text += `${first && i === 0 ? '' : ','}\n    ${JSON.stringify(entries[i])}`;
    return text;
  },
  close: (empty) => (empty ? ']' : '\n  ]'),
  tail: '\n}\n',
};

const YAML_WRITER: Writer = {
  head: (changeId) => `version: ${DOCUMENT_VERSION}\nchange_id: ${changeId}\n`,
  // A key's block sequence may sit at the key's own indentation.
  open: (name) => `${stringify(name, YAML_OPTIONS).trimEnd()}:`,
  entries: (entries, first) => `${first ? '\n' : ''}${stringify(entries, YAML_OPTIONS)}`,
  close: (empty) => (empty ? ' []\n' : ''),
  tail: '',
};

/** The document's text, in chunks of about CHUNK_CHARS, read from `snapshot`. */
export async function* configurationDocument(snapshot: ConfigurationSnapshot, registry: Registry, format: ExportFormat): AsyncGenerator<string> {
  const writer = format === 'yaml' ? YAML_WRITER : JSON_WRITER;
  let chunk = writer.head(snapshot.changeId);
  let firstResource = true;
  for (const resource of registry.dependencyOrder()) {
    chunk += writer.open(resource.name, firstResource);
    firstResource = false;
    let first = true;
    for await (const entries of snapshot.entries(resource, EXPORT_BATCH)) {
      // Cut by entry, so that a chunk stays small whatever the batch (chunks past the young
      // generation's size are freed only by full collections: monitoring-query.ts).
      for (let start = 0; start < entries.length; start += 100) {
        chunk += writer.entries(entries.slice(start, start + 100), first);
        first = false;
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = '';
        }
      }
    }
    chunk += writer.close(first);
  }
  yield chunk + writer.tail;
}
