// Every relative link and #anchor of README.md and docs/*.md leads somewhere (the README is a
// front page; the rest of the documentation is in docs/, pages that link to each other).
// @backend-independent (runs once, not once per backend): reads README and docs/ only.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { brokenLinks } from '../scripts/check-doc-links.js';

test('every relative link and anchor of the README and docs/ resolves (npm run docs:check)', () => {
  const docs = fileURLToPath(new URL('../docs/', import.meta.url));
  const files = [fileURLToPath(new URL('../README.md', import.meta.url)), ...readdirSync(docs).filter((name) => name.endsWith('.md')).map((name) => docs + name)];
  assert.ok(files.length > 5, 'the README and the pages of docs/');
  assert.deepEqual(brokenLinks(files), []);
});
