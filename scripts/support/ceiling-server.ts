// The benchmark's ceiling: a bare node:http server that answers every request with one fixed
// status and body. It runs in a process of its own, like the service, so that it never shares
// a thread with the load generator: `node ceiling-server.ts STATUS BODY_FILE`; prints
// `listening PORT` once it accepts connections.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const status = Number(process.argv[2]);
const payload = readFileSync(process.argv[3]!);

const server = createServer((request, response) => {
  // The request body is read to its end, as the service must read it.
  request.resume();
  request.on('end', () => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': payload.length });
    response.end(payload);
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
