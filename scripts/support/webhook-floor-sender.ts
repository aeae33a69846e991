// The floor of `npm run bench:webhooks`: the same work as the service's deliveries with
// nothing else, in a process of its own as the service is. It POSTs COUNT bodies of the
// given size, signed as a delivery is (HMAC-SHA256 over id.timestamp.body), to the receiver
// at URL from CONCURRENCY loops, each on a new connection (as the service sends them) or
// kept alive (`keep-alive`), and prints `sent COUNT in MS` on stdout.
// Usage: webhook-floor-sender.ts URL COUNT CONCURRENCY BODY_BYTES new|keep-alive
import { createHmac, randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';

const [url, countText, concurrencyText, bytesText, mode] = process.argv.slice(2);
const count = Number(countText);
const key = randomBytes(32);
const filler = 'x'.repeat(Number(bytesText));
const agent = mode === 'keep-alive' ? new Agent({ keepAlive: true, maxSockets: Number(concurrencyText) }) : false;

function send(n: number): Promise<void> {
  const body = `{"type":"tags.create","timestamp":"${new Date().toISOString()}","data":{"id":${n},"pad":"${filler}"}}`;
  const id = `msg_${n}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
  return new Promise((done, fail) => {
    const sent = request(url!, { method: 'POST', headers, agent }, (response) => {
      response.resume();
      response.on('end', () => done());
    });
    sent.on('error', fail);
    sent.end(body);
  });
}

let next = 0;
const started = Date.now();
await Promise.all(
  Array.from({ length: Number(concurrencyText) }, async () => {
    while (next < count) await send(next++);
  }),
);
process.stdout.write(`sent ${count} in ${Date.now() - started}\n`);
if (agent !== false) agent.destroy();
