// The floor of scenario 1 of `npm run bench:webhooks`: bare Fastify inserting the service's
// server row into a SQLite file made by the service (its schema and indexes), the writes of
// one event-loop turn in one transaction (synchronous=FULL), as the service's commit groups
// do; with RECEIVER_URLS (comma separated), after each commit three signed POSTs per row
// (the `standardwebhooks` package's signature, one kept-alive node:http agent), sent after
// the answer's commit as the service's deliveries are, their answers read and dropped.
// Its throughput with the POSTs over its throughput without is the most a POST with three
// webhooks can reach on this stack. Nothing else: no log, no validation, no change log.
// Usage: webhook-floor-server.ts DATABASE_FILE [RECEIVER_URLS]; prints `listening PORT`.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import Fastify from 'fastify';
import { Webhook } from 'standardwebhooks';
import { groupedWrites, INSERT_SERVER, openFloorDatabase } from './sqlite-floor-database.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const database = openFloorDatabase(process.argv[2]!);
const receivers = (process.argv[3] ?? '').split(',').filter(Boolean);
const signer = new Webhook(randomBytes(24).toString('base64'));
const agent = new Agent({ keepAlive: true, maxSockets: 32 });
const insertServer = database.prepare(INSERT_SERVER);
let sent = 0;

function deliver(row: unknown): void {
  const body = JSON.stringify({ type: 'servers.create', timestamp: new Date().toISOString(), data: row });
  for (const url of receivers) {
    const id = `floor_${++sent}`;
    const now = new Date();
    const headers = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signer.sign(id, now, body) };
    const post = request(url, { method: 'POST', headers, agent }, (response) => response.resume());
    post.on('error', () => undefined);
    post.end(body);
  }
}

// The search queue moved before each COMMIT as the service does; the deliveries after it.
const write = groupedWrites(database, (rows) => {
  if (receivers.length > 0) setImmediate(() => rows.forEach(deliver));
});

const app = Fastify({ logger: false });
app.post<{ Body: Record<string, string | number> }>('/:lang/api/config/servers', async (request, reply) => {
  const now = new Date().toISOString();
  const { ip, port = 3306, hostname = '' } = request.body;
  return reply.code(201).type(JSON_TYPE).send(JSON.stringify(await write(() => insertServer.get(ip, port, hostname, now, now))));
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
process.on('SIGTERM', () => {
  agent.destroy();
  void app.close().then(() => process.exit(0));
});
