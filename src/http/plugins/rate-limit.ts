// Optional request budget per caller (RATE_LIMIT_PER_MINUTE): a token bucket per accepted
// token (by name), else per client address (an IPv6 client per /64, which it may own whole),
// so that guessing tokens is limited like anonymous use. Runs after the caller is identified and before authorization refuses anything. Public
// endpoints are not counted, so that health checks never starve. The limit is per instance.
// Behind a reverse proxy, the address is X-Forwarded-For's only if TRUST_PROXY names the proxy.
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { clientNetwork } from '../../auth/address-ranges.js';
import { isPublicPath } from '../../auth/public-paths.js';
import { ApiError } from '../../errors/api-error.js';
import { message } from '../../messages/messages.js';

interface Bucket {
  tokens: number;
  updated: number;
}

// Enough callers for any fleet; past it the oldest buckets are dropped rather than memory grown.
const MAX_BUCKETS = 100_000;

function callerKey(request: FastifyRequest): string {
  const caller = request.caller;
  return caller !== null && request.refusal === null ? `t:${caller.name}` : `a:${clientNetwork(request.ip)}`;
}

export default fp<{ perMinute: number }>(
  async (app, { perMinute }) => {
    if (perMinute <= 0) return;
    const refillPerMs = perMinute / 60_000;
    const buckets = new Map<string, Bucket>();

    const sweep = setInterval(() => {
      const now = Date.now();
      for (const [key, bucket] of buckets) if (now - bucket.updated > 120_000) buckets.delete(key);
    }, 60_000);
    sweep.unref();
    app.addHook('onClose', async () => clearInterval(sweep));

    app.addHook('onRequest', async (request) => {
      if (isPublicPath(request.url)) return;
      const key = callerKey(request);
      const now = Date.now();
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        if (buckets.size >= MAX_BUCKETS) buckets.delete(buckets.keys().next().value as string);
        bucket = { tokens: perMinute, updated: now };
        buckets.set(key, bucket);
      }
      bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.updated) * refillPerMs);
      bucket.updated = now;
      if (bucket.tokens < 1) {
        const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMs / 1000));
        throw new ApiError('RATE_LIMITED', message('rate.limited', { seconds }), [], { 'retry-after': String(seconds) });
      }
      bucket.tokens -= 1;
    });
  },
  { name: 'rate-limit', dependencies: ['problem-responses', 'authentication'] },
);
