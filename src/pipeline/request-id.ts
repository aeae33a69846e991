// A request's id: the caller's X-Request-Id when it cannot smuggle anything into a log line or
// a change record, else one the service makes (src/app.ts). The document states the pattern.
export const REQUEST_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';

const SAFE_REQUEST_ID = new RegExp(REQUEST_ID_PATTERN);

export function isSafeRequestId(sent: unknown): sent is string {
  return typeof sent === 'string' && SAFE_REQUEST_ID.test(sent);
}
