// `npm run lint:openapi`: lints the OpenAPI documents (French and English) with
// `redocly lint` (recommended rules, see redocly.yaml) and validates them with
// @apidevtools/swagger-parser. Any error or warning fails. The test suite runs the same
// checks on the documents a running server serves.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { buildOpenApiDocument } from '../src/openapi/build-openapi-document.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';

const ROOT = resolve(import.meta.dirname, '..');
// A fixed place, because .redocly.lint-ignore.yaml names its exceptions by file.
const LINT_DIR = join(ROOT, 'test-artifacts', 'openapi');
const LOCK_STALE_MS = 60_000;
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

export interface LintReport {
  file: string;
  errors: number;
  warnings: number;
  ignored: number;
  /** One line per problem, `severity rule: message at pointer`. */
  problems: string[];
  /** Empty when swagger-parser accepts the document. */
  swaggerParser: string;
}

interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location?: { pointer?: string }[];
}

function redoclyLint(file: string): Promise<Omit<LintReport, 'swaggerParser'>> {
  return new Promise((done, fail) => {
    // No telemetry and no update check: the lint must work offline and send nothing out.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    const child = spawn(process.execPath, [REDOCLY, 'lint', relative(ROOT, file), '--format=json'], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', fail);
    child.on('close', () => {
      try {
        const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number; ignored: number }; problems: RedoclyProblem[] };
        const problems = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
        done({ file, ...report.totals, problems });
      } catch {
        fail(new Error(`redocly lint gave no report for ${file}:\n${stdout}\n${stderr}`));
      }
    });
  });
}

async function swaggerParserProblems(document: object): Promise<string> {
  try {
    await SwaggerParser.validate(structuredClone(document) as never);
    return '';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Runs `work` while holding the lint folder: test files that run side by side each lint
 * their own documents, under the one file name the ignore list knows. */
async function holdingLintFolder<T>(work: () => Promise<T>): Promise<T> {
  const lock = join(LINT_DIR, '.lock');
  mkdirSync(LINT_DIR, { recursive: true });
  const deadline = Date.now() + 2 * LOCK_STALE_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || Date.now() > deadline) throw error;
      // A lint takes seconds: an older lock was left by a run that was killed.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs! > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Lints documents by language, e.g. `{ en, fr }` as a server serves them. */
export async function lintOpenApiDocuments(documents: Record<string, object>): Promise<LintReport[]> {
  return holdingLintFolder(() => Promise.all(
    Object.entries(documents).map(async ([language, document]) => {
      const file = join(LINT_DIR, `openapi.${language}.json`);
      // Pretty-printed, so that a problem's line number means something to a reader.
      writeFileSync(file, JSON.stringify(document, null, 2));
      const [lint, swaggerParser] = await Promise.all([redoclyLint(file), swaggerParserProblems(document)]);
      return { ...lint, swaggerParser };
    }),
  ));
}

export function reportIsClean(report: LintReport): boolean {
  return report.errors === 0 && report.warnings === 0 && report.swaggerParser === '';
}

async function main(): Promise<void> {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const reports = await lintOpenApiDocuments({ en: buildOpenApiDocument(DEFAULT_REGISTRY, version, 'en'), fr: buildOpenApiDocument(DEFAULT_REGISTRY, version, 'fr') });
  for (const report of reports) {
    process.stdout.write(
      `${relative(ROOT, report.file)}: redocly ${report.errors} error(s), ${report.warnings} warning(s), ${report.ignored} ignored ` +
        `(see .redocly.lint-ignore.yaml); swagger-parser ${report.swaggerParser === '' ? 'valid' : `INVALID: ${report.swaggerParser}`}\n`,
    );
    for (const problem of report.problems) process.stdout.write(`  ${problem}\n`);
  }
  process.exitCode = reports.every(reportIsClean) ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
