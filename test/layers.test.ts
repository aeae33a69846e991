// The folders of src/ form layers that point one way (docs/architecture.md): a folder may
// import only from folders below it, so that no folder imports one that imports it back.
// Migrations are frozen in time: they import nothing from the application.
// @backend-independent (runs once, not once per backend): reads src/ only.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = resolve(import.meta.dirname, '../src');

/** Bottom first. A folder may import from any folder of a lower rank, never from its own rank or above. */
const LAYERS: readonly (readonly string[])[] = [
  ['messages'],
  ['errors'],
  ['registry', 'secrets', 'auth', 'metrics'],
  ['db'],
  ['store', 'config'],
  ['pipeline'],
  ['openapi', 'cluster'],
  ['http'],
  ['logging'],
  ['.'], // the composition root: main, app, the command-line tools
];

const rank = new Map(LAYERS.flatMap((names, index) => names.map((name) => [name, index] as const)));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The top folder of src/ a file lives in ('.' for the files at the top). */
function layerOf(file: string): string {
  const parts = relative(SRC, file).split('/');
  return parts.length === 1 ? '.' : parts[0]!;
}

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => resolve(dirname(file), match[1]!));
}

test('every folder of src/ has a layer', () => {
  const folders = new Set(sourceFiles(SRC).map(layerOf));
  for (const folder of folders) assert.ok(rank.has(folder), `src/${folder} is in no layer of test/layers.test.ts`);
});

test('imports point down the layers only', () => {
  const wrong: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = layerOf(file);
    for (const target of relativeImports(file)) {
      const to = layerOf(target);
      if (to !== from && rank.get(to)! >= rank.get(from)!) wrong.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('migrations import nothing from the application', () => {
  const folder = join(SRC, 'db/migrations');
  const wrong = sourceFiles(folder).flatMap((file) =>
    relativeImports(file)
      .filter((target) => dirname(target) !== folder)
      .map((target) => `${relative(SRC, file)} imports ${relative(SRC, target)}`),
  );
  assert.deepEqual(wrong, []);
});
