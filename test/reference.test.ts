// docs/resources.md, the reference of every resource that the README and docs/api.md link to, is generated
// from the registry: it must be what the generator makes of the current registry (else run
// `npm run reference:generate`), and it must name every resource and field.
// @backend-independent (runs once, not once per backend): the reference generated from the registry, in memory.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { REFERENCE_FILE, referenceMarkdown } from '../scripts/generate-reference.js';
import { bodyFields } from '../src/registry/managed-fields.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';

const committed = readFileSync(REFERENCE_FILE, 'utf8');

test('docs/resources.md is what the registry makes (else run npm run reference:generate)', () => {
  assert.ok(committed === referenceMarkdown(DEFAULT_REGISTRY), 'docs/resources.md is stale: run `npm run reference:generate` and commit the result');
});

test('it has a section per resource with a row per field, its uniqueness and its delete rule', () => {
  for (const resource of DEFAULT_REGISTRY.resources) {
    const section = committed.split(`\n## ${resource.name}\n`)[1]?.split('\n## ')[0];
    assert.ok(section !== undefined, `a section for ${resource.name}`);
    for (const [name] of bodyFields(resource)) assert.match(section, new RegExp(`^\\| \`${name}\` \\|`, 'm'), `${resource.name}.${name}`);
    assert.match(section, /\*\*Unique:\*\*/);
    assert.match(section, resource.deletion.mode === 'soft' ? /\*\*Delete:\*\* soft/ : /\*\*Delete:\*\* hard/);
  }
});

test('the README links to it, and to nothing outside the repository', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  assert.match(readme, /\]\(docs\/resources\.md\)/);
  assert.doesNotMatch(readme, /\]\(\.\.\//, 'a link that leaves the repository');
});
