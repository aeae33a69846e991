// A webhook receiver for the tests: a node:http server on loopback that records every request
// (headers and body) and answers what the test says (a status, headers, or no answer at all).
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { perSuite } from './per-suite.js';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** How the next requests are answered; `hang`: never. */
  answer: (request: Received, index: number) => { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => ({ status: 204 }),
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      receiver.received.push(received);
      const answer = receiver.answer(received, receiver.received.length - 1);
      if (answer === 'hang') {
        hanging.push(response);
        return;
      }
      const send = () => response.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
      if (answer.delayMs === undefined) send();
      else setTimeout(send, answer.delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  (receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}

/** A receiver for the tests of the enclosing suite, answering `answer` until a test says
 * otherwise (serverPerSuite's twin). */
export function receiverPerSuite(answer?: Receiver['answer']): Receiver {
  return perSuite(
    'receiver',
    async () => {
      const receiver = await startReceiver();
      if (answer !== undefined) receiver.answer = answer;
      return receiver;
    },
    (receiver) => receiver.close(),
  );
}
