// Respond step of the answers whose body is streamed as it is read (contract sections 17 and
// 18): the monitoring integrations and the configuration export. The body is a byte stream
// with back-pressure: the reply pipes it into the socket, which pauses it while its buffer is
// full; paused, it asks for no further batch (test/monitoring-stream-gate.test.ts), so an
// answer held by a slow reader holds a batch or two, not the answer. The heavy-work slot is
// given back when the stream closes: after its end, an error or the client going away.
//
// The chunks go to the socket as strings: a byte stream would turn each into a Buffer,
// external memory that only a full collection frees, which let resident memory grow with the
// size of the fleet.
import { Readable } from 'node:stream';
import type { ExportResult } from './execute-export.js';
import type { MonitoringResult } from './execute-monitoring.js';
import type { Outcome } from './respond.js';

const JSON_TYPE = 'application/json; charset=utf-8';

function streamed(chunks: AsyncIterable<string>, release: () => void): Readable {
  const body = Readable.from(chunks);
  // 'close' comes once, after the end, an error or the client going away.
  body.once('close', release);
  return body;
}

export function respondMonitoring(result: MonitoringResult): Outcome {
  const { etag } = result;
  if (result.answer === 'unchanged') return { status: 304, headers: { etag } };
  const headers = { etag, 'content-type': JSON_TYPE };
  return result.answer === 'headers' ? { status: 200, headers } : { status: 200, headers, body: streamed(result.chunks, result.release) };
}

export function respondExport(result: ExportResult): Outcome {
  const headers = { 'content-type': result.contentType, vary: 'Accept' };
  return result.answer === 'headers'
    ? { status: 200, headers }
    : { status: 200, headers: { ...headers, 'change-id': String(result.changeId) }, body: streamed(result.chunks, result.release) };
}
