// The floor of GET by id on SQLite: a bare node:http server that reads the asked server's row
// and its tags from the bench's SQLite file with one prepared statement (better-sqlite3, as
// the service does) and answers it as JSON. No framework, no log line, no cache: what any
// service that reads the row for each request pays at least. It runs in a process of its own,
// like the service and the ceiling: `node read-floor-server.ts DATABASE_FILE`; prints
// `listening PORT` once it accepts connections.
import { createServer } from 'node:http';
import SqliteDatabase from 'better-sqlite3';

const database = new SqliteDatabase(process.argv[2]!, { readonly: true });
const read = database.prepare(
  `select id, ip, port, hostname, ssl, ssh, is_proxy, is_vip, is_monitored, is_deleted, id_client, id_environment,
     (select group_concat(l.id_tag) from server_tags as l where l.id_server = servers.id) as tags, created_at, updated_at
   from servers where id = ?`,
);

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const url = request.url ?? '';
    const row = read.get(Number(url.slice(url.lastIndexOf('/') + 1)));
    const payload = JSON.stringify(row ?? null);
    response.writeHead(row === undefined ? 404 : 200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
    response.end(payload);
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
