#!/usr/bin/env node
// Configuration as code from the command line (docs/config-as-code.md, "Command line"):
//
//   npm run --silent config -- export [--yaml] > fleet.yaml   (or --output fleet.yaml)
//   npm run config -- apply fleet.yaml [--dry-run] [--prune servers,tags] [--if-match ETAG]
//
// against CONFIG_API_URL (the service's base URL; a path prefix is kept) with CONFIG_API_TOKEN
// (a read token for export, a write token for apply; optional for a service without tokens).
// `export` streams `GET /en/api/export` to standard output. `apply` sends FILE (`-`: standard
// input; YAML unless it is a .json file or starts with `{`) to `POST /en/api/apply` and prints
// the plan as a diff a person reads at a glance, then its ETag:
//
//   + servers 10.0.0.5:3306
//   ~ servers 10.0.0.6:3306  port: 3306 -> 3307
//   - tags old
//
// Exit status: 0 applied (or planned), 1 refused by the service (the problem's detail and each
// place it names go to standard error; 412 when the state changed since the --if-match plan),
// 2 a wrong command line or setting, 3 the service could not be reached. Node's built-ins
// only: it runs wherever Node 20 does, with nothing installed beside it.
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';

const USAGE = `usage: config export [--yaml] [--output FILE]
       config apply FILE [--dry-run] [--prune RESOURCE,…] [--if-match ETAG]`;

class Exit extends Error {
  constructor(status, text) {
    super(text);
    this.status = status;
  }
}

function settings() {
  const base = process.env.CONFIG_API_URL;
  if (base === undefined || base === '') throw new Exit(2, 'CONFIG_API_URL is not set (the configuration API, e.g. http://127.0.0.1:8080)');
  const headers = {};
  const token = process.env.CONFIG_API_TOKEN;
  if (token !== undefined && token !== '') headers.authorization = `Bearer ${token}`;
  return { base: base.replace(/\/+$/, ''), headers };
}

/** The options of a subcommand: flags, and options that take the next argument. */
function parseArguments(args, flags, valued) {
  const options = { positional: [] };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    const [name, inline] = arg.startsWith('--') ? arg.slice(2).split(/=(.*)/s, 2) : [undefined, undefined];
    if (name === undefined || arg === '-') options.positional.push(arg);
    else if (flags.includes(name) && inline === undefined) options[name] = true;
    else if (valued.includes(name)) {
      const value = inline ?? args[++index];
      if (value === undefined || value === '') throw new Exit(2, `--${name} needs a value\n${USAGE}`);
      options[name] = value;
    } else throw new Exit(2, `unknown option ${arg}\n${USAGE}`);
  }
  return options;
}

async function send(url, init) {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw new Exit(3, `cannot reach ${new URL(url).origin}: ${error.cause?.code ?? error.cause?.errors?.[0]?.code ?? error.message}`);
  }
}

/** A refusal: the problem's status, code and detail, then every place it names. */
async function refusal(response) {
  const text = await response.text();
  let problem;
  try {
    problem = JSON.parse(text);
  } catch {
    return new Exit(1, `refused: HTTP ${response.status}${text === '' ? '' : `: ${text.slice(0, 500)}`}`);
  }
  const lines = [`refused: HTTP ${response.status} ${problem.code ?? ''}: ${problem.detail ?? ''}`.trimEnd()];
  for (const error of problem.errors ?? []) {
    const place = error.at ?? (error.index === undefined ? error.field : `[${error.index}].${error.field}`);
    lines.push(`  ${place === '' ? '(document)' : place}: ${error.message}`);
  }
  for (const user of problem.referenced_by ?? []) lines.push(`  still referenced by ${user.resource} ${user.ids.join(', ')}`);
  return new Exit(1, lines.join('\n'));
}

async function exportCommand(args) {
  const options = parseArguments(args, ['yaml'], ['output']);
  if (options.positional.length > 0) throw new Exit(2, USAGE);
  const { base, headers } = settings();
  const response = await send(`${base}/en/api/export`, { headers: { ...headers, accept: options.yaml ? 'application/yaml' : 'application/json' } });
  if (!response.ok) throw await refusal(response);
  // --output: a file written only once the answer came (a refusal leaves it as it was).
  await pipeline(Readable.fromWeb(response.body), options.output === undefined ? process.stdout : createWriteStream(options.output));
}

async function readDocument(file) {
  if (file === '-') {
    const chunks = [];
    for await (const chunk of createReadStream('/dev/stdin')) chunks.push(chunk);
    return Buffer.concat(chunks);
  }
  try {
    return await readFile(file);
  } catch (error) {
    throw new Exit(2, `cannot read ${file}: ${error.code ?? error.message}`);
  }
}

function mediaTypeOf(file, bytes) {
  if (/\.json$/i.test(file)) return 'application/json';
  if (/\.ya?ml$/i.test(file)) return 'application/yaml';
  return bytes.toString('utf8', 0, 64).trimStart().startsWith('{') ? 'application/json' : 'application/yaml';
}

const shown = (value) => (typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value));
const SIGNS = { create: '+', update: '~', delete: '-' };

/** The plan as lines: one per change, an update's fields `name: before -> after`. */
export function planLines(plan) {
  const lines = plan.changes.map((change) => {
    const head = `${SIGNS[change.action] ?? '?'} ${change.resource} ${change.key}`;
    if (change.fields === undefined) return head;
    const fields = Object.entries(change.fields).map(([name, [before, after]]) => `${name}: ${shown(before)} -> ${shown(after)}`);
    return `${head}  ${fields.join(', ')}`;
  });
  const { create, update, unchanged } = plan.counts;
  lines.push(`${create} to create, ${update} to update, ${plan.counts.delete} to delete, ${unchanged} unchanged`);
  return lines;
}

async function applyCommand(args) {
  const options = parseArguments(args, ['dry-run'], ['prune', 'if-match']);
  if (options.positional.length !== 1) throw new Exit(2, USAGE);
  const [file] = options.positional;
  const { base, headers } = settings();
  const body = await readDocument(file);
  const query = new URLSearchParams();
  if (options['dry-run']) query.set('dry_run', 'true');
  if (options.prune !== undefined) query.set('prune', options.prune);
  const search = query.size === 0 ? '' : `?${query.toString().replaceAll('%2C', ',')}`;
  const requestHeaders = { ...headers, 'content-type': mediaTypeOf(file, body), accept: 'application/json' };
  if (options['if-match'] !== undefined) requestHeaders['if-match'] = options['if-match'];
  const response = await send(`${base}/en/api/apply${search}`, { method: 'POST', headers: requestHeaders, body });
  if (!response.ok) throw await refusal(response);
  const plan = await response.json();
  const dryRun = response.headers.get('dry-run') === 'true';
  const lines = planLines(plan);
  lines.push(dryRun ? `dry run: nothing changed (state at change ${plan.change_id})` : `applied (change ${plan.change_id})`);
  lines.push(`ETag: ${response.headers.get('etag')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(args) {
  const [command, ...rest] = args;
  if (command === 'export') return exportCommand(rest);
  if (command === 'apply') return applyCommand(rest);
  throw new Exit(2, USAGE);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error) => {
    const status = error instanceof Exit ? error.status : 1;
    process.stderr.write(`config: ${error instanceof Exit ? error.message : error.stack}\n`);
    process.exitCode = status;
  });
}
