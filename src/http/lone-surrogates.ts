// A request body's strings must be Unicode text. An escape such as "\ud800" alone (JSON's and
// YAML's `\u`, YAML's `\U0000D800`) names no character: a database stores U+FFFD in its place,
// so the stored value would differ from the one sent and answered, and sending it again would
// be a change every time. Raw bytes cannot carry one (bodies are checked to be UTF-8 first),
// so only a body whose text holds such an escape is walked.

const SURROGATE_ESCAPE = /\\(u|U0000)[dD][89a-fA-F]/;
/** With the u flag a pair is one code point: only a surrogate alone matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Whether every string of a parsed value, keys included, is Unicode text. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return !LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.every(wellFormed);
  if (value !== null && typeof value === 'object') return Object.entries(value).every(([key, item]) => !LONE_SURROGATE.test(key) && wellFormed(item));
  return true;
}

/** Whether `value`, parsed from `text`, holds a string with a lone surrogate. */
export function holdsLoneSurrogate(text: string, value: unknown): boolean {
  return SURROGATE_ESCAPE.test(text) && !wellFormed(value);
}
