// Every shell example of the README and docs/ runs against a started service and answers what
// its page says (the convention: test/support/doc-examples.ts, docs/architecture.md). One
// service per page, on a fresh SQLite database; the examples of a page run in order in one
// bash session. It is about the pages, not the backends: it runs once, on SQLite.
// @backend-independent (runs once, not once per backend): the pages, on SQLite.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { answerMismatch, parsePage, parseAnswer, runPage, RUNNABLE_LANGUAGES, type Page } from './support/doc-examples.js';
import { startServer } from './support/server.js';
import { BACKEND } from './support/test-database.js';

const ROOT = resolve(import.meta.dirname, '..');
const ALL_PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
// DOC_EXAMPLES_PAGES=README.md,docs/api.md runs only those pages (while writing them).
const PAGES = process.env.DOC_EXAMPLES_PAGES ? ALL_PAGES.filter((name) => process.env.DOC_EXAMPLES_PAGES!.split(',').includes(name)) : ALL_PAGES;
const skip = BACKEND === 'sqlite' ? false : `the documentation examples run once, on SQLite (TEST_DATABASE=${BACKEND}): they test the pages, not the backends`;

describe('the shell examples of the README and docs/ answer what their pages say', { skip }, () => {
  const pages = new Map<string, Page>(ALL_PAGES.map((name) => [name, parsePage(readFileSync(join(ROOT, name), 'utf8'))]));

  test('every page follows the convention: each shell block runs or says why not, each answer parses', () => {
    const problems: string[] = [];
    for (const [name, page] of pages) {
      for (const problem of page.problems) problems.push(`${name}: ${problem}`);
      for (const block of page.blocks) {
        if (!RUNNABLE_LANGUAGES.has(block.language) || block.notRun !== undefined) continue;
        for (const step of block.steps) {
          if (step.answer === undefined) continue;
          try {
            parseAnswer(step.answer);
          } catch (error) {
            problems.push(`${name}: line ${step.line}: the answer does not parse: ${(error as Error).message}`);
          }
        }
      }
    }
    assert.deepEqual(problems, []);
    const runnable = [...pages.values()].flatMap((page) => page.blocks.filter((block) => RUNNABLE_LANGUAGES.has(block.language) && block.notRun === undefined));
    assert.ok(runnable.length >= 10, `the pages have runnable examples (${runnable.length})`);
  });

  test('the convention reads markers, answers and settings, and matches JSON with … loosely', () => {
    const page = parsePage(
      ['<!-- example-env: A=1 B=x=y -->', '<!-- not-run: a remote host -->', '```sh', 'ssh far', '```', '', '<!-- example-setup:', 'echo set', '-->', '```sh',
        'X=1', 'curl $API   # → 200 {"a":[1,…],', '#    "b":"p…"}   a comment', 'echo done', '# → do…e  said', '```', '<!-- not-run: -->', '```text', 'x', '```'].join('\n'),
    );
    assert.deepEqual(page.env, { A: '1', B: 'x=y' });
    assert.deepEqual(page.problems, ['line 17: not-run stands before a ```text block, which never runs']);
    assert.equal(page.blocks[0]!.notRun, 'a remote host');
    assert.equal(page.blocks[1]!.setup, 'echo set');
    assert.deepEqual(page.blocks[1]!.steps.map((step) => [step.code, step.answer]), [['X=1\ncurl $API', '200 {"a":[1,…], "b":"p…"}   a comment'], ['echo done', 'do…e  said']]);
    const json = parseAnswer('200 {"a":[1,…], "b":"p…"}   a comment');
    assert.equal(answerMismatch(json, '{"b":"pq","a":[1,2,3]}', 200), undefined);
    assert.match(answerMismatch(json, '{"b":"pq","a":[1,2,3]}', 201)!, /status 201/);
    assert.match(answerMismatch(json, '{"b":"pq","a":[2]}', 200)!, /\$\.a\[0\]/);
    assert.match(answerMismatch(json, '{"b":"pq","a":[1],"c":0}', 200)!, /does not show.*c/);
    assert.equal(answerMismatch(parseAnswer('{"a":1,…}'), '{"a":1,"c":0}', undefined), undefined);
    assert.equal(answerMismatch(parseAnswer('401  access is on'), '401\n', 401), undefined);
    assert.equal(answerMismatch(parseAnswer('do…e  said'), 'do  it e\n', undefined), undefined);
    assert.notEqual(answerMismatch(parseAnswer('1'), '12', undefined), undefined);
  });

  for (const name of PAGES) {
    test(name, async (t) => {
      const page = parsePage(readFileSync(join(ROOT, name), 'utf8'));
      const shell = page.blocks.filter((block) => RUNNABLE_LANGUAGES.has(block.language));
      const runnable = shell.filter((block) => block.notRun === undefined);
      const notRun = (): void => {
        for (const block of shell.filter((b) => b.notRun !== undefined)) t.diagnostic(`  not run, line ${block.line}: ${block.notRun}`);
      };
      if (runnable.length === 0) {
        t.diagnostic(`${name}: 0 run, ${shell.length} not run`);
        notRun();
        return;
      }
      const server = await startServer({ env: page.env });
      try {
        const run = await runPage(page, server.url);
        const answers = runnable.reduce((sum, block) => sum + block.steps.filter((step) => step.answer !== undefined).length, 0);
        t.diagnostic(`${name}: ${run.ran} run (${answers} stated answers), ${run.notRun} not run`);
        notRun();
        assert.deepEqual(run.failures, [], `${name}: examples that do not answer what the page says:\n\n${run.failures.join('\n\n')}`);
      } finally {
        await server.stop();
        await server.cleanup();
      }
    });
  }
});
