// The floors the bench reads its figures against: a server that does a request's database
// work on the bench's SQLite file with prepared statements (better-sqlite3, as the service
// does) and answers it as JSON, and nothing else: no log line, no cache, no hook, no
// validation, no change log, no count. What any SQLite-backed service pays at least.
// - `node`: on bare node:http, the least any such service on Node pays (GET by id only);
// - `fastify`: on Fastify (its logger off), the least any such service on this stack pays,
//   before the service's own work. Routes: GET a server or a tag by id, a page of 100 tags,
//   POST a server or a tag (the row inserted with RETURNING; the writes of one event-loop
//   turn share one transaction, as the service's commit groups do, synchronous=FULL), and
//   the first page of 100 servers by hostname with its ETag: a 304 when If-None-Match
//   names it (the 304 poll's floor; the bench polls with this server's own tag).
// Each runs in a process of its own, like the service and the ceiling:
// `node sqlite-floor-server.ts DATABASE_FILE node|fastify`; prints `listening PORT` once it
// accepts connections. A floor that writes gets a copy of the file (bench.ts).
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import { groupedWrites, INSERT_SERVER, openFloorDatabase } from './sqlite-floor-database.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const database = openFloorDatabase(process.argv[2]!);
const framework = process.argv[3] ?? 'node';
const serverRow = database.prepare(
  `select id, ip, port, hostname, ssl, ssh, is_proxy, is_vip, is_monitored, is_deleted, id_client, id_environment,
     (select group_concat(l.id_tag) from server_tags as l where l.id_server = servers.id) as tags, created_at, updated_at
   from servers where id = ?`,
);
const tagRow = database.prepare('select id, name, color, background, created_at, updated_at from tags where id = ?');
const tagPage = database.prepare('select id, name, color, background, created_at, updated_at from tags order by id limit 100');
const serverPage = database.prepare('select id, ip, port, hostname, created_at, updated_at from servers order by hostname, id limit 100');
const insertTag = database.prepare('insert into tags (name, color, background, created_at, updated_at) values (?, ?, ?, ?, ?) returning *');
const insertServer = database.prepare(INSERT_SERVER);

/** The row's JSON text, or undefined when there is none. */
function read(statement: SqliteDatabase.Statement, id: number): string | undefined {
  const row = statement.get(id);
  return row === undefined ? undefined : JSON.stringify(row);
}

/** Writes queued in one turn, committed together. */
const write = groupedWrites(database);

async function nodeServer(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const url = request.url ?? '';
      const payload = read(serverRow, Number(url.slice(url.lastIndexOf('/') + 1)));
      const body = payload ?? 'null';
      response.writeHead(payload === undefined ? 404 : 200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
      response.end(body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return server;
}

async function fastifyServer(): Promise<Server> {
  const app = Fastify({ logger: false });
  const statements: Record<string, SqliteDatabase.Statement> = { servers: serverRow, tags: tagRow };
  app.get<{ Params: { resource: string; id: string } }>('/:lang/api/config/:resource/:id', (request, reply) => {
    const payload = read(statements[request.params.resource] ?? serverRow, Number(request.params.id));
    return reply.code(payload === undefined ? 404 : 200).type(JSON_TYPE).send(payload ?? 'null');
  });
  // Nothing writes servers while the page is polled: its text and tag are worked out once.
  let page: { text: string; tag: string } | undefined;
  app.get('/:lang/api/config/servers', (request, reply) => {
    if (page === undefined) {
      const text = JSON.stringify({ data: serverPage.all() });
      page = { text, tag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 22)}"` };
    }
    reply.header('etag', page.tag);
    return request.headers['if-none-match'] === page.tag ? reply.code(304).send() : reply.type(JSON_TYPE).send(page.text);
  });
  app.get('/:lang/api/config/tags', (_request, reply) => reply.type(JSON_TYPE).send(JSON.stringify({ data: tagPage.all() })));
  app.post<{ Body: Record<string, string> }>('/:lang/api/config/tags', async (request, reply) => {
    const now = new Date().toISOString();
    const { name, color = '#ffffff', background = '#337ab7' } = request.body;
    return reply.code(201).type(JSON_TYPE).send(JSON.stringify(await write(() => insertTag.get(name, color, background, now, now))));
  });
  app.post<{ Body: Record<string, string | number> }>('/:lang/api/config/servers', async (request, reply) => {
    const now = new Date().toISOString();
    const { ip, port = 3306, hostname } = request.body;
    return reply.code(201).type(JSON_TYPE).send(JSON.stringify(await write(() => insertServer.get(ip, port, hostname, now, now))));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app.server;
}

if (framework !== 'node' && framework !== 'fastify') throw new Error(`unknown framework ${framework}: node or fastify`);
const server = framework === 'node' ? await nodeServer() : await fastifyServer();
const address = server.address();
process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
