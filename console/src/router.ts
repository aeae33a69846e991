// Pages are addressed by the part of the URL after '#' (`#/servers/12?q=paris`): the service
// serves one page, /{lang}/console/, and the browser's back and forward buttons, bookmarks and
// links work on every view. A few lines, so no router library (docs/console.md).
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** The path's segments: `#/servers/12` is ['servers', '12']. */
  readonly path: readonly string[];
  readonly params: URLSearchParams;
}

export function currentRoute(): Route {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = hash.split('?', 2);
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(search) };
}

export function href(path: string, params?: Record<string, string | number | readonly string[] | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const one of value) search.append(name, one);
    else search.set(name, String(value));
  }
  const text = search.toString();
  return `#${path}${text === '' ? '' : `?${text}`}`;
}

export function navigate(path: string, params?: Parameters<typeof href>[1]): void {
  location.hash = href(path, params);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = (): void => setRoute(currentRoute());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
