// The `{lang}` path segment: the platform's languages. Only French and English have
// messages of their own; the others are accepted so that links built by the platform's
// UI keep working, and answer in English.

export type MessageLanguage = 'fr' | 'en';

export const PLATFORM_LANGUAGES = [
  'fr', 'en', 'cs', 'da', 'de', 'es', 'fi', 'it', 'ja', 'nl', 'pl', 'pt', 'ru', 'uk', 'zh-cn',
] as const;

const platformLanguages: ReadonlySet<string> = new Set(PLATFORM_LANGUAGES);

export function isPlatformLanguage(segment: string): boolean {
  return platformLanguages.has(segment);
}

export function messageLanguage(segment: string | undefined): MessageLanguage {
  return segment === 'fr' ? 'fr' : 'en';
}

/** The language of a raw URL, for errors raised before routing (404, 413, 415 …). */
export function languageOfUrl(url: string): MessageLanguage {
  // The first segment, found without splitting the whole URL on every request.
  const end = url.indexOf('/', 1);
  return messageLanguage(url.slice(1, end === -1 ? undefined : end));
}
