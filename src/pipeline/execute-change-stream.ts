// Execute step of `GET /{lang}/api/changes/stream` (contract section 13): the change log as
// Server-Sent Events. Its answer is no status, headers and body but a connection written to
// for as long as the stream lasts, by the service that holds every open stream (their
// limits, their shared buffer budget, their tokens' validity: src/http/change-streams.ts).
// So the execution here opens nothing itself: its result hands the plan to that service, and
// the respond step makes it a hand-over outcome (respond.ts), which the route factory calls
// with the request's connection. The service admits the stream, subscribes it to the change
// feed and reads the backlog before it writes a byte: a refusal or a database that cannot be
// reached is still an ordinary problem+json answer, mapped where every endpoint's is.
import type { ChangeFilter } from '../store/change-log.js';
import type { StreamConnection } from './respond.js';

export interface ChangeStreamPlan {
  readonly action: 'change-stream';
  /** The id after which records are sent: `since`, or the Last-Event-ID of a reconnection. */
  readonly since: number;
  readonly filter: ChangeFilter;
}

/** The service that serves the change streams (the HTTP layer's: it owns the connections). */
export interface ChangeStreams {
  /** Admits the stream, then writes its events to the connection until it ends; throws only
   * before anything is written. */
  open(plan: ChangeStreamPlan, connection: StreamConnection): Promise<void>;
}

export interface ChangeStreamResult {
  readonly action: 'change-stream';
  readonly plan: ChangeStreamPlan;
  readonly open: (connection: StreamConnection) => Promise<void>;
}

export function executeChangeStreamPlan(streams: ChangeStreams, plan: ChangeStreamPlan): ChangeStreamResult {
  return { action: 'change-stream', plan, open: (connection) => streams.open(plan, connection) };
}
