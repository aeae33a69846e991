// What anyone may read without a token (contract section 9): the OpenAPI document, the
// docs page, the operator console's page and files (the page asks for a token itself, and
// holds no data) and the health endpoints. Everything else, unknown paths included, needs one,
// so that an anonymous caller learns nothing about what exists.
const PUBLIC = [/^\/(healthz|readyz)$/, /^\/[^/]+\/api\/(openApi(\.yaml)?|docs)(\/.*)?$/, /^\/[^/]+\/console(\/[^/]*)?$/];

export function isPublicPath(url: string): boolean {
  // Most requests are none of these: said in a few substring tests instead of two patterns,
  // since this runs on every request once tokens exist.
  if (!url.includes('/api/openApi') && !url.includes('/api/docs') && !url.includes('/console') && !url.startsWith('/healthz') && !url.startsWith('/readyz')) return false;
  const path = url.split('?', 1)[0]!.replace(/\/+$/, '') || '/';
  return PUBLIC.some((pattern) => pattern.test(path));
}
