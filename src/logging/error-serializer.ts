// How an error is written to the log (the `err` of a line), so that a 500 names its cause
// without ever writing text a client chose. Database drivers put the values of a failed
// statement into their messages ("invalid input syntax for type integer: "1 OR 1=1"",
// "Incorrect integer value: '…' for column") and into fields of their own (`detail`,
// `where`, `sql`, `parameters`); a JSON or URL error quotes its input. So: the error's class,
// its code and where it came from are written, and its message with every quoted stretch
// replaced; nothing else of it is.

/** Fields of driver errors that name the failure, never a value (SQLSTATE, errno, the
 * PostgreSQL routine that raised it, the table and constraint involved). */
const SAFE_FIELDS = ['code', 'errno', 'sqlState', 'severity', 'routine', 'table', 'column', 'constraint'] as const;

/** Causes followed at most: a cycle or a long chain must not make a line huge. */
const MAX_CAUSES = 5;
const MAX_MESSAGE = 500;

// "…", '…', `…`, “…”, «…», ‘…’: the stretches a message quotes are its input.
const CLOSING: Readonly<Record<string, string>> = { '"': '"', "'": "'", '`': '`', '“': '”', '«': '»', '‘': '’' };
// Control characters would also let a value forge the look of a line.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** A message with what it quotes removed; whatever a client chose is quoted in it. A quote
 * that never closes opens a stretch that runs to the end: nothing after it is kept. */
export function scrubMessage(text: string): string {
  let kept = '';
  for (let at = 0; at < text.length; ) {
    const close = CLOSING[text[at]!];
    if (close === undefined) {
      kept += text[at];
      at += 1;
      continue;
    }
    const end = text.indexOf(close, at + 1);
    kept += `${text[at]}…${end === -1 ? '' : close}`;
    if (end === -1) break;
    at = end + 1;
  }
  kept = kept.replace(CONTROL, ' ');
  return kept.length > MAX_MESSAGE ? `${kept.slice(0, MAX_MESSAGE)}…` : kept;
}

/** The stack's frames (file and line, which no client chooses), without its first line,
 * which repeats the message. */
function frames(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const lines = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return lines.length === 0 ? undefined : lines.join('\n');
}

function safeValue(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return scrubMessage(value).slice(0, 100);
  return undefined;
}

export interface LoggedError {
  type: string;
  message: string;
  /** The frames, or '' when there are none. */
  stack: string;
  [field: string]: unknown;
}

/** The `err` serializer of the service's logger. */
export function serializeError(error: unknown): LoggedError {
  if (typeof error !== 'object' || error === null) return { type: typeof error, message: scrubMessage(String(error)), stack: '' };
  const messages: string[] = [];
  let first: LoggedError | undefined;
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSES && current !== undefined && current !== null; depth++) {
    const record = current as { message?: unknown; cause?: unknown; constructor?: { name?: unknown } };
    const text = typeof record.message === 'string' ? scrubMessage(record.message) : '';
    if (text !== '') messages.push(text);
    if (first === undefined) {
      const type = typeof record.constructor?.name === 'string' ? record.constructor.name : 'Object';
      first = { type, message: '', stack: frames((current as { stack?: unknown }).stack) ?? '' };
      for (const field of SAFE_FIELDS) {
        const value = safeValue((current as Record<string, unknown>)[field]);
        if (value !== undefined) first[field] = value;
      }
    }
    current = record.cause;
  }
  // As pino's own serializer does: the message names the causes too ("A: B").
  return { ...(first ?? { type: 'Object', stack: '' }), message: messages.join(': ') };
}
