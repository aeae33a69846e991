// Checks on the raw text of a JSON body that JSON.parse does not make: a key named twice in
// one object (JSON.parse keeps the last one silently, hiding what the client meant) and
// nesting deeper than any body of this API can be. One pass, no recursion, so a hostile
// body of a million brackets costs a loop, not the stack.

export type JsonTextVerdict = 'ok' | 'duplicate-key' | 'too-deep';

interface Frame {
  /** Keys seen so far; null for an array. */
  keys: Set<string> | null;
  expectingKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export function inspectJsonText(text: string, maxDepth: number): JsonTextVerdict {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = i + 1;
      // A string with neither an escape nor a control character is its own text: no need to
      // hand it to JSON.parse (a bulk body has thousands of keys).
      let plain = true;
      while (end < text.length) {
        const d = text.charCodeAt(end);
        if (d === QUOTE) break;
        if (d === BACKSLASH) {
          plain = false;
          end += 2;
        } else {
          if (d < 0x20) plain = false;
          end += 1;
        }
      }
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectingKey) {
        let key: string;
        if (plain && end < text.length) key = text.slice(i + 1, end);
        else {
          try {
            key = JSON.parse(text.slice(i, end + 1)) as string;
          } catch {
            return 'ok'; // not JSON at all: the parser says so
          }
        }
        if (top.keys.has(key)) return 'duplicate-key';
        top.keys.add(key);
        top.expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      stack.push({ keys: c === 0x7b ? new Set() : null, expectingKey: c === 0x7b });
      if (stack.length > maxDepth) return 'too-deep';
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectingKey = true;
    }
  }
  return 'ok';
}
