// The floors of GET by id on SQLite: a server that reads the asked server's row and its tags
// from the bench's SQLite file with one prepared statement (better-sqlite3, as the service
// does) and answers it as JSON. No log line, no cache, no hook: what any service that reads
// the row for each request pays at least. Two of them:
// - `node`: on bare node:http, the least any such service on Node pays;
// - `fastify`: on Fastify (one route, its logger off), the least any such service on this
//   stack pays, before the service's own work (its log line, request id, ETag, hooks).
// Each runs in a process of its own, like the service and the ceiling:
// `node read-floor-server.ts DATABASE_FILE node|fastify`; prints `listening PORT` once it
// accepts connections.
import { createServer, type Server } from 'node:http';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';

const JSON_TYPE = 'application/json; charset=utf-8';
const database = new SqliteDatabase(process.argv[2]!, { readonly: true });
const framework = process.argv[3] ?? 'node';
const statement = database.prepare(
  `select id, ip, port, hostname, ssl, ssh, is_proxy, is_vip, is_monitored, is_deleted, id_client, id_environment,
     (select group_concat(l.id_tag) from server_tags as l where l.id_server = servers.id) as tags, created_at, updated_at
   from servers where id = ?`,
);

/** The row's JSON text, or undefined when there is no such server. */
function read(id: number): string | undefined {
  const row = statement.get(id);
  return row === undefined ? undefined : JSON.stringify(row);
}

async function nodeServer(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const url = request.url ?? '';
      const payload = read(Number(url.slice(url.lastIndexOf('/') + 1)));
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
  app.get<{ Params: { id: string } }>('/:lang/api/config/:resource/:id', (request, reply) => {
    const payload = read(Number(request.params.id));
    return reply.code(payload === undefined ? 404 : 200).type(JSON_TYPE).send(payload ?? 'null');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app.server;
}

if (framework !== 'node' && framework !== 'fastify') throw new Error(`unknown framework ${framework}: node or fastify`);
const server = framework === 'node' ? await nodeServer() : await fastifyServer();
const address = server.address();
process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
