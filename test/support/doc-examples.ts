// The shell examples of the README and docs/: extracted from the Markdown, run in order in one
// bash session per page against a started service, and compared with what the page says they
// answer (test/doc-examples.test.ts). The convention (docs/architecture.md, "Documentation
// examples"):
//
// - Every ```sh (or bash, shell) block runs, unless an HTML comment `<!-- not-run: why -->`
//   stands just before it. Other fences (console, text, json, ts …) never run.
// - `# → ANSWER` after a command (on the next line, or at the end of its line) states what
//   the commands since the previous `# →` answer. Comment lines that follow it and start with
//   `#` and two spaces or more continue it. ANSWER is an optional HTTP status (three digits:
//   the status of the step's last request), then either a JSON value, where `…` stands for
//   any value, any further members of an object, any further elements of an array or any
//   part of a string (compared as JSON: whitespace and key order do not matter), or a line
//   of text, where `…` stands for anything (whitespace is compared loosely). What follows the
//   JSON value, or two spaces or more after the text, is a comment for the reader.
// - Every request must answer 2xx or 3xx, but the last one of a step whose answer states
//   another status; every command must succeed (bash runs with `set -eo pipefail`).
// - `<!-- example-env: NAME=value … -->` anywhere in a page: settings of the service started
//   for that page (and variables of its shell session). `<!-- example-setup: shell code -->`
//   just before a block runs before it, unchecked: what the reader did elsewhere (a token
//   made by `npm run token:create`, say).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RUNNABLE_LANGUAGES = new Set(['sh', 'bash', 'shell']);
/** The address the pages use; rewritten to the test server's. */
export const DOCUMENTED_ORIGIN = 'http://127.0.0.1:8080';

export interface Step {
  /** The shell code, lines as in the page. */
  code: string;
  /** The stated answer, continuation lines joined with a space; undefined when none. */
  answer?: string;
  /** Line (1-based) of the step's answer in the page, else of its last code line. */
  line: number;
}

export interface Block {
  language: string;
  /** Line of the opening fence (1-based). */
  line: number;
  /** The reason given by `<!-- not-run: … -->`, undefined when the block runs. */
  notRun?: string;
  /** Shell code of `<!-- example-setup: … -->` before the block. */
  setup?: string;
  steps: Step[];
}

export interface Page {
  /** Settings of `<!-- example-env: … -->`. */
  env: Record<string, string>;
  /** Every fenced block. */
  blocks: Block[];
  /** Mistakes in the use of the convention (a marker before no shell block, a reason missing). */
  problems: string[];
}

const ANSWER = /(?:^|\s)# → ?(.*)$/;
const CONTINUATION = /^\s*# {2,}(.*)$/;

/** Splits a shell block into steps, each ending at a stated answer (or at the block's end). */
export function stepsOf(lines: readonly string[], firstLine: number): Step[] {
  const steps: Step[] = [];
  let code: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index]!;
    const found = ANSWER.exec(text);
    if (found === null) {
      code.push(text);
      continue;
    }
    const codePart = text.slice(0, found.index).trimEnd();
    if (codePart !== '') code.push(codePart);
    const line = firstLine + index;
    let answer = found[1]!.trim();
    while (index + 1 < lines.length && CONTINUATION.test(lines[index + 1]!)) {
      index++;
      answer += ' ' + CONTINUATION.exec(lines[index]!)![1]!.trim();
    }
    steps.push({ code: code.join('\n'), answer, line });
    code = [];
  }
  if (code.some((line) => line.trim() !== '' && !line.trim().startsWith('#'))) {
    steps.push({ code: code.join('\n'), line: firstLine + lines.length - 1 });
  }
  return steps;
}

/** Reads a page: its fenced blocks, their markers, its example settings. */
export function parsePage(markdown: string): Page {
  const lines = markdown.split('\n');
  const page: Page = { env: {}, blocks: [], problems: [] };
  // HTML comments seen since the last non-blank line that was not one.
  let pending: { kind: string; text: string; line: number }[] = [];
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index]!;
    const comment = /^\s*<!--\s*([a-z-]+):([\s\S]*)$/.exec(text);
    if (comment !== null) {
      let body = comment[2]!;
      const start = index;
      while (!body.includes('-->') && index + 1 < lines.length) body += '\n' + lines[++index]!;
      body = body.slice(0, body.indexOf('-->')).trim();
      const kind = comment[1]!;
      if (kind === 'example-env') {
        for (const setting of body.split(/\s+/).filter(Boolean)) {
          const equals = setting.indexOf('=');
          if (equals <= 0) page.problems.push(`line ${start + 1}: example-env wants NAME=value, not ${setting}`);
          else page.env[setting.slice(0, equals)] = setting.slice(equals + 1);
        }
      } else if (kind === 'not-run' || kind === 'example-setup') {
        pending.push({ kind, text: body, line: start + 1 });
      }
      continue;
    }
    const fence = /^(\s*)(`{3,})\s*([^\s`]*)/.exec(text);
    if (fence !== null) {
      const indent = fence[1]!.length;
      const close = new RegExp(`^\\s*${fence[2]!}\\s*$`);
      const body: string[] = [];
      const line = index + 1;
      while (index + 1 < lines.length && !close.test(lines[index + 1]!)) body.push(lines[++index]!.slice(indent));
      index++;
      const language = fence[3]!.toLowerCase();
      const block: Block = { language, line, steps: [] };
      for (const marker of pending) {
        if (!RUNNABLE_LANGUAGES.has(language)) page.problems.push(`line ${marker.line}: ${marker.kind} stands before a \`\`\`${language || '(plain)'} block, which never runs`);
        else if (marker.text === '') page.problems.push(`line ${marker.line}: ${marker.kind} gives nothing (${marker.kind === 'not-run' ? 'say why' : 'the code'})`);
        else if (marker.kind === 'not-run') block.notRun = marker.text;
        else block.setup = marker.text;
      }
      pending = [];
      if (RUNNABLE_LANGUAGES.has(language)) block.steps = stepsOf(body, line + 1);
      page.blocks.push(block);
      continue;
    }
    if (text.trim() !== '') {
      for (const marker of pending) page.problems.push(`line ${marker.line}: ${marker.kind} stands before no code block`);
      pending = [];
    }
  }
  for (const marker of pending) page.problems.push(`line ${marker.line}: ${marker.kind} stands before no code block`);
  return page;
}

// ---------------------------------------------------------------------------------------------
// Answers: a status, then JSON with `…` or a line of text.

type Pattern =
  | { kind: 'any' }
  | { kind: 'literal'; value: unknown }
  | { kind: 'string'; glob: string }
  | { kind: 'object'; members: [string, Pattern][]; open: boolean }
  | { kind: 'array'; items: (Pattern | 'rest')[] };

export interface Answer {
  status?: number;
  json?: Pattern;
  text?: string;
}

const ELLIPSIS = '…';

/** Parses a JSON value in which `…` may stand for values, members, elements and parts of strings. */
export function parseJsonPattern(source: string, start = 0): { pattern: Pattern; end: number } {
  let at = start;
  const space = (): void => {
    while (at < source.length && /\s/.test(source[at]!)) at++;
  };
  const fail = (what: string): never => {
    throw new Error(`${what} at character ${at} of ${JSON.stringify(source)}`);
  };
  const value = (): Pattern => {
    space();
    const c = source[at];
    if (source.startsWith(ELLIPSIS, at)) {
      at += ELLIPSIS.length;
      return { kind: 'any' };
    }
    if (c === '"') {
      const raw = /^"(?:[^"\\]|\\.)*"/.exec(source.slice(at));
      if (raw === null) return fail('unterminated string');
      at += raw[0].length;
      const text = JSON.parse(raw[0]) as string;
      return text.includes(ELLIPSIS) ? { kind: 'string', glob: text } : { kind: 'literal', value: text };
    }
    if (c === '{') {
      at++;
      const members: [string, Pattern][] = [];
      let open = false;
      space();
      if (source[at] === '}') {
        at++;
        return { kind: 'object', members, open };
      }
      for (;;) {
        space();
        if (source.startsWith(ELLIPSIS, at)) {
          at += ELLIPSIS.length;
          open = true;
        } else {
          const key = value();
          if (key.kind !== 'literal' || typeof key.value !== 'string') return fail('a key must be a plain string');
          space();
          if (source[at] !== ':') return fail('":" expected');
          at++;
          members.push([key.value as string, value()]);
        }
        space();
        if (source[at] === ',') at++;
        else if (source[at] === '}') {
          at++;
          return { kind: 'object', members, open };
        } else return fail('"," or "}" expected');
      }
    }
    if (c === '[') {
      at++;
      const items: (Pattern | 'rest')[] = [];
      space();
      if (source[at] === ']') {
        at++;
        return { kind: 'array', items };
      }
      for (;;) {
        space();
        if (source.startsWith(ELLIPSIS, at)) {
          at += ELLIPSIS.length;
          items.push('rest');
        } else items.push(value());
        space();
        if (source[at] === ',') at++;
        else if (source[at] === ']') {
          at++;
          return { kind: 'array', items };
        } else return fail('"," or "]" expected');
      }
    }
    const literal = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(source.slice(at));
    if (literal === null) return fail('a JSON value expected');
    at += literal[0].length;
    return { kind: 'literal', value: JSON.parse(literal[0]) };
  };
  const pattern = value();
  return { pattern, end: at };
}

function globRegExp(glob: string, loose: boolean): RegExp {
  const parts = glob.split(ELLIPSIS).map((part) => {
    const escaped = part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return loose ? escaped.replace(/\s+/g, '\\s+') : escaped;
  });
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`);
}

/** Where `value` differs from `pattern` (a path and what), or undefined when it matches. */
export function mismatch(pattern: Pattern, value: unknown, path = '$'): string | undefined {
  switch (pattern.kind) {
    case 'any':
      return undefined;
    case 'literal':
      return value === pattern.value ? undefined : `${path}: ${JSON.stringify(value)}, not ${JSON.stringify(pattern.value)}`;
    case 'string':
      return typeof value === 'string' && globRegExp(pattern.glob, false).test(value) ? undefined : `${path}: ${JSON.stringify(value)} does not match ${JSON.stringify(pattern.glob)}`;
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${path}: ${JSON.stringify(value)} is not an object`;
      const record = value as Record<string, unknown>;
      for (const [key, member] of pattern.members) {
        if (!(key in record)) return `${path}: no member ${JSON.stringify(key)}`;
        const inner = mismatch(member, record[key], `${path}.${key}`);
        if (inner !== undefined) return inner;
      }
      if (!pattern.open) {
        const extra = Object.keys(record).filter((key) => !pattern.members.some(([name]) => name === key));
        if (extra.length > 0) return `${path}: members the page does not show (add "…" if they may be there): ${extra.join(', ')}`;
      }
      return undefined;
    }
    case 'array': {
      if (!Array.isArray(value)) return `${path}: ${JSON.stringify(value)} is not an array`;
      let first: string | undefined;
      const from = (i: number, j: number): boolean => {
        if (i === pattern.items.length) return j === value.length;
        const item = pattern.items[i]!;
        if (item === 'rest') {
          for (let k = j; k <= value.length; k++) if (from(i + 1, k)) return true;
          return false;
        }
        if (j === value.length) {
          first ??= `${path}: ${value.length} element(s), fewer than the page shows`;
          return false;
        }
        const inner = mismatch(item, value[j], `${path}[${j}]`);
        if (inner !== undefined) {
          first ??= inner;
          return false;
        }
        return from(i + 1, j + 1);
      };
      return from(0, 0) ? undefined : (first ?? `${path}: ${value.length} element(s), more than the page shows`);
    }
  }
}

/** Reads a stated answer: `[status] [JSON | text]`, then the reader's comment. */
export function parseAnswer(answer: string): Answer {
  const result: Answer = {};
  let rest = answer.trim();
  const status = /^(\d{3})(?=\s|$)/.exec(rest);
  if (status !== null) {
    result.status = Number(status[1]);
    rest = rest.slice(status[0].length);
    // Two spaces or more after the status: the rest is the reader's comment.
    rest = /^\s{2,}/.test(rest) ? '' : rest.trim();
  }
  if (rest.startsWith('{') || rest.startsWith('[')) result.json = parseJsonPattern(rest).pattern;
  else {
    const text = rest.split(/\s{2,}/)[0]!.trim();
    if (text !== '') result.text = text;
  }
  return result;
}

/** The body part of what a step printed: without the headers `curl -i` prints before it. */
function bodyOf(output: string): string {
  let text = output.trim();
  while (/^HTTP\/[\d.]+ \d{3}/.test(text)) {
    const end = text.search(/\r?\n\r?\n/);
    if (end < 0) return '';
    text = text.slice(end).trim();
  }
  return text;
}

/** Why `output` (what the step printed) and `status` (its last request's) are not the stated answer. */
export function answerMismatch(answer: Answer, output: string, status: number | undefined): string | undefined {
  if (answer.status !== undefined) {
    if (status === undefined) return `the page states status ${answer.status}, but the step made no request`;
    if (status !== answer.status) return `status ${status}, the page says ${answer.status}`;
  }
  const body = bodyOf(output);
  if (answer.json !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return `the page shows JSON, the step printed ${JSON.stringify(body.slice(0, 300))}`;
    }
    const where = mismatch(answer.json, value);
    return where === undefined ? undefined : `${where}\n  printed: ${body.slice(0, 600)}`;
  }
  if (answer.text !== undefined) {
    const printed = output.trim().replace(/\s+/g, ' ');
    return globRegExp(answer.text.replace(/\s+/g, ' '), true).test(printed) ? undefined : `printed ${JSON.stringify(printed.slice(0, 300))}, the page says ${JSON.stringify(answer.text)}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Running a page.

export interface StepResult {
  block: Block;
  step: Step;
  /** Why it failed, or undefined. */
  failure?: string;
}

export interface PageRun {
  ran: number;
  notRun: number;
  failures: string[];
}

const PRELUDE = `set -eo pipefail
# Every request's headers go to a file of its own, listed per step, for its status.
curl() {
  local headers
  headers=$(mktemp "$DOC_TMP/headers.XXXXXX")
  printf '%s\\n' "$headers" >> "$DOC_TMP/requests.$DOC_STEP"
  command curl --dump-header "$headers" "$@"
}
`;

function statusesOf(tmp: string, step: number): (number | undefined)[] {
  const list = join(tmp, `requests.${step}`);
  if (!existsSync(list)) return [];
  return readFileSync(list, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((file) => {
      const lines = [...readFileSync(file, 'utf8').matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)];
      const last = lines.at(-1);
      return last === undefined ? undefined : Number(last[1]);
    });
}

/**
 * Runs the runnable blocks of a page in order, in one bash session, in a fresh working folder,
 * with `http://127.0.0.1:8080` rewritten to `origin`, and compares each step with its answer.
 */
export async function runPage(page: Page, origin: string, timeoutMs = 90_000): Promise<PageRun> {
  const tmp = mkdtempSync(join(tmpdir(), 'doc-examples-'));
  const work = join(tmp, 'work');
  const run: PageRun = { ran: 0, notRun: 0, failures: [] };
  try {
    const numbered: { block: Block; step: Step }[] = [];
    let script = PRELUDE;
    const rewrite = (code: string): string => code.split(DOCUMENTED_ORIGIN).join(origin);
    for (const block of page.blocks) {
      if (!RUNNABLE_LANGUAGES.has(block.language)) continue;
      if (block.notRun !== undefined) {
        run.notRun++;
        continue;
      }
      run.ran++;
      if (block.setup !== undefined) {
        const n = numbered.length;
        numbered.push({ block, step: { code: block.setup, line: block.line - 1 } });
        script += `DOC_STEP=${n}\n{\n${rewrite(block.setup)}\n} > "$DOC_TMP/out.${n}" 2> "$DOC_TMP/err.${n}"\n: > "$DOC_TMP/done.${n}"\n`;
      }
      for (const step of block.steps) {
        const n = numbered.length;
        numbered.push({ block, step });
        script += `DOC_STEP=${n}\n{\n${rewrite(step.code)}\n} > "$DOC_TMP/out.${n}" 2> "$DOC_TMP/err.${n}"\n: > "$DOC_TMP/done.${n}"\n`;
      }
    }
    if (numbered.length === 0) return run;
    mkdirSync(work);
    const scriptFile = join(tmp, 'page.sh');
    writeFileSync(scriptFile, script);
    const exit = await new Promise<{ code: number | string | null; stderr: string }>((done) => {
      execFile(
        'bash',
        ['--noprofile', '--norc', scriptFile],
        { cwd: work, env: { PATH: process.env.PATH ?? '', HOME: work, LANG: 'C.UTF-8', ...page.env, DOC_TMP: tmp }, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 },
        (error, _stdout, stderr) => done({ code: error === null ? 0 : ((error as NodeJS.ErrnoException & { code?: number | string }).code ?? (error as { signal?: string }).signal ?? null), stderr }),
      );
    });
    numbered.forEach(({ block, step }, n) => {
      const where = `line ${step.line} (block of line ${block.line})`;
      const done = existsSync(join(tmp, `done.${n}`));
      const output = existsSync(join(tmp, `out.${n}`)) ? readFileSync(join(tmp, `out.${n}`), 'utf8') : undefined;
      if (output === undefined) return; // an earlier step stopped the session; it is reported
      const errors = existsSync(join(tmp, `err.${n}`)) ? readFileSync(join(tmp, `err.${n}`), 'utf8') : '';
      if (!done) {
        run.failures.push(`${where}: a command failed (bash exit ${String(exit.code)}) in:\n${step.code}\n  stderr: ${errors.trim().slice(-800)}\n  stdout: ${output.slice(0, 400)}`);
        return;
      }
      const statuses = statusesOf(tmp, n);
      const answer = step.answer === undefined ? {} : parseAnswer(step.answer);
      const checked = answer.status === undefined ? statuses : statuses.slice(0, -1);
      const bad = checked.findIndex((status) => status === undefined || status < 200 || status >= 400);
      if (bad >= 0) {
        run.failures.push(`${where}: request ${bad + 1} of the step answered ${String(checked[bad] ?? 'nothing')} (examples answer 2xx or 3xx unless the page states another status) in:\n${step.code}\n  printed: ${output.slice(0, 400)}`);
        return;
      }
      const why = answerMismatch(answer, output, statuses.at(-1));
      if (why !== undefined) run.failures.push(`${where}: ${why}\n  the step:\n${step.code}\n  # → ${step.answer ?? ''}`);
    });
    if (exit.code !== 0 && run.failures.length === 0) run.failures.push(`the bash session ended with ${String(exit.code)}: ${exit.stderr.slice(-800)}`);
    return run;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
