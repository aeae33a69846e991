// One attempt of one webhook delivery: an HTTP POST of the delivery's body, signed by the
// Standard Webhooks rules, to the address the guard checked just before (the host is
// resolved at every attempt; the connection goes to that address, never to a second
// resolution). Redirects are not followed; TLS certificates are verified against the URL's
// host name. The whole attempt, answer included, is bounded by the time-out; at most 1 KB of
// the answer is kept.
//
// Connections are kept alive between attempts, pooled by the checked address (the request
// names the address itself, with the URL's host in `Host` and as the TLS server name): a
// connection is only ever reused for an address that passed the guard at this attempt, and a
// busy receiver is not made to accept a new connection per delivery. An attempt whose reused
// connection turns out closed by the receiver is made again at once on a new one.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { AddressGuard } from '../auth/webhook-address-guard.js';
import { signatureHeader } from '../secrets/webhook-signature.js';
import type { Attempt } from '../store/webhook-delivery-records.js';
import type { WebhookTarget } from '../store/webhook-store.js';
import type { Reach } from './webhook-reachability.js';

const RESPONSE_KEPT = 1024;
// Idle connections are closed before a receiver's usual keep-alive time-out (Node's 5 s).
const IDLE_MS = 4000;
const httpAgent = new HttpAgent({ keepAlive: true, timeout: IDLE_MS });
const httpsAgent = new HttpsAgent({ keepAlive: true, timeout: IDLE_MS });
/** Errors that say no connection could be made to the receiver's address: it is down. */
const REFUSED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

export interface AttemptResult {
  readonly attempt: Attempt;
  readonly succeeded: boolean;
  /** A Retry-After of a 429 or 503, in milliseconds. */
  readonly retryAfterMs?: number;
  /** What the attempt says of the receiver: it answered (any status), it refused the
   * connection (or was unreachable), or neither (a time-out, a refusal by the guard). */
  readonly reach: Reach;
}

/** `Retry-After`: seconds, or an HTTP date. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function webhookMessageId(deliveryId: number): string {
  return `msg_${deliveryId}`;
}

export async function attemptDelivery(guard: AddressGuard, target: WebhookTarget, deliveryId: number, payload: string, timeoutMs: number): Promise<AttemptResult> {
  const started = Date.now();
  const at = new Date(started).toISOString();
  const failed = (error: string, statusCode: number | null = null, response = '', reach: Reach = 'unknown'): AttemptResult => ({
    attempt: { at, duration_ms: Date.now() - started, status_code: statusCode, error, response },
    succeeded: false,
    reach,
  });
  const url = new URL(target.url);
  const resolved = await guard.resolve(url.hostname);
  if ('unresolved' in resolved) return failed('the host cannot be resolved');
  if ('refused' in resolved) return failed(`refused: the host resolves to ${resolved.refused}, outside WEBHOOK_ALLOWED_NETWORKS`);
  const timestamp = Math.floor(started / 1000);
  const id = webhookMessageId(deliveryId);
  const headers: Record<string, string> = {
    ...target.headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(payload)),
    'user-agent': 'PmaControl-Webhooks',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(target.secrets, id, timestamp, payload),
  };
  const https = url.protocol === 'https:';
  const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
  headers.host = url.host;
  // The address checked above, whatever the name resolves to by now.
  const options = {
    method: 'POST',
    host: resolved.address,
    family: resolved.family,
    port,
    path: `${url.pathname}${url.search}`,
    headers,
    ...(https ? { agent: httpsAgent, ...(isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0 ? { servername: url.hostname } : {}) } : { agent: httpAgent }),
  };
  const send = https ? httpsRequest : httpRequest;
  const post = (fresh: boolean): Promise<AttemptResult> =>
    new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const settle = (result: AttemptResult, keep = false): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // A connection whose answer was read whole goes back to the pool; any other is closed.
        if (!keep) request.destroy();
        resolve(result);
      };
      const request = send({ ...options, ...(fresh ? { agent: false } : {}) }, (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_KEPT) chunks.push(chunk.subarray(0, RESPONSE_KEPT - kept));
          kept += chunk.length;
        });
        response.on('error', () => settle(failed('the answer was cut', response.statusCode ?? null, '', 'answered')));
        response.on('end', () => {
          const code = response.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          const ok = code >= 200 && code < 300;
          const retry = code === 429 || code === 503 ? retryAfterMs(response.headers['retry-after'], Date.now()) : undefined;
          settle(
            {
              attempt: { at, duration_ms: Date.now() - started, status_code: code, error: ok ? null : code >= 300 && code < 400 ? 'redirects are not followed' : `HTTP ${code}`, response: text },
              succeeded: ok,
              reach: 'answered',
              ...(retry === undefined ? {} : { retryAfterMs: retry }),
            },
            true,
          );
        });
      });
      const timer = setTimeout(() => settle(failed(`no answer within ${timeoutMs} ms`)), Math.max(1, started + timeoutMs - Date.now()));
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver closed meanwhile (the usual race with its idle
        // time-out). Were the body read before the reset, the receiver gets it twice, with the
        // same webhook-id: deliveries are at least once.
        if (!settled && !fresh && request.reusedSocket && error.code === 'ECONNRESET') {
          settled = true;
          clearTimeout(timer);
          resolve(post(true));
          return;
        }
        settle(failed(error.code ?? 'the connection failed', null, '', error.code !== undefined && REFUSED.has(error.code) ? 'refused' : 'unknown'));
      });
      request.end(payload);
    });
  return post(false);
}
