// One attempt of one webhook delivery: an HTTP POST of the delivery's body, signed by the
// Standard Webhooks rules, to the address the guard checked just before (the host is
// resolved at every attempt; the connection goes to that address, never to a second
// resolution). Redirects are not followed; TLS certificates are verified. The whole attempt,
// answer included, is bounded by the time-out; at most 1 KB of the answer is kept.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AddressGuard } from '../auth/webhook-address-guard.js';
import { signatureHeader } from '../secrets/webhook-signature.js';
import type { Attempt } from '../store/webhook-deliveries.js';
import type { WebhookTarget } from '../store/webhook-store.js';

const RESPONSE_KEPT = 1024;

export interface AttemptResult {
  readonly attempt: Attempt;
  readonly succeeded: boolean;
  /** A Retry-After of a 429 or 503, in milliseconds. */
  readonly retryAfterMs?: number;
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
  const failed = (error: string, statusCode: number | null = null, response = ''): AttemptResult => ({
    attempt: { at, duration_ms: Date.now() - started, status_code: statusCode, error, response },
    succeeded: false,
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
  // The address checked above, whatever the name resolves to by now.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: resolved.address, family: resolved.family }]);
    else callback(null, resolved.address, resolved.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const settle = (result: AttemptResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = send(url, { method: 'POST', headers, lookup, agent: false }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_KEPT) chunks.push(chunk.subarray(0, RESPONSE_KEPT - kept));
        kept += chunk.length;
      });
      response.on('error', () => settle(failed('the answer was cut', response.statusCode ?? null)));
      response.on('end', () => {
        const code = response.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        const ok = code >= 200 && code < 300;
        const retry = code === 429 || code === 503 ? retryAfterMs(response.headers['retry-after'], Date.now()) : undefined;
        settle({
          attempt: { at, duration_ms: Date.now() - started, status_code: code, error: ok ? null : code >= 300 && code < 400 ? 'redirects are not followed' : `HTTP ${code}`, response: text },
          succeeded: ok,
          ...(retry === undefined ? {} : { retryAfterMs: retry }),
        });
      });
    });
    const timer = setTimeout(() => settle(failed(`no answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => settle(failed(error.code ?? 'the connection failed')));
    request.end(payload);
  });
}
