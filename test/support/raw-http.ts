// HTTP/1.1 over a bare socket, for the tests that look at what a connection itself went
// through: answered, closed cleanly (FIN) or reset, or left hanging. fetch and node:http
// hide the difference.
import { connect, type Socket } from 'node:net';

export type Outcome = 'answered' | 'closed' | 'reset' | 'hanging';

export interface RawExchange {
  readonly socket: Socket;
  /** Resolves once the socket is connected (the kernel's handshake, not the server's accept). */
  readonly connected: Promise<void>;
  /** Resolves when the connection ends, how it ended, and the answer if one came. */
  readonly result: Promise<RawResult>;
}

export interface RawResult {
  outcome: Outcome;
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

/** Opens a connection to `url` and sends `request` as soon as it is connected (nothing, if it
 * is undefined: an idle connection). Gives up after `timeoutMs`: the outcome is `hanging`. */
export function rawExchange(url: string, request: string | undefined, timeoutMs = 20_000): RawExchange {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const connected = new Promise<void>((done, fail) => {
    socket.once('connect', done);
    socket.once('error', fail);
  });
  connected.catch(() => undefined);
  const result = new Promise<RawResult>((done) => {
    let received = '';
    let ended = false;
    const timer = setTimeout(() => {
      done({ outcome: 'hanging' });
      socket.destroy();
    }, timeoutMs);
    socket.setEncoding('latin1');
    socket.on('connect', () => {
      if (request !== undefined) socket.write(request);
    });
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => (ended = true));
    socket.on('error', () => undefined);
    socket.on('close', (hadError) => {
      clearTimeout(timer);
      if (hadError || !ended) {
        done({ outcome: 'reset' });
        return;
      }
      done(received === '' ? { outcome: 'closed' } : { outcome: 'answered', ...parseAnswer(received) });
    });
  });
  return { socket, connected, result };
}

function parseAnswer(text: string): Pick<RawResult, 'status' | 'headers' | 'body'> {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) };
}

/** A POST request with a JSON body, as a client sends it (`close`: asking the server to close
 * the connection after its answer). */
export function postRequest(path: string, body: unknown, close = false): string {
  const json = Buffer.from(JSON.stringify(body));
  const connection = close ? 'Connection: close\r\n' : '';
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n${connection}\r\n${json.toString('latin1')}`;
}

/** How many exchanges ended each way ('answered 200', 'closed', 'reset'...). */
export function tally(results: RawResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) {
    const key = result.outcome === 'answered' ? `answered ${result.status}` : result.outcome;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
