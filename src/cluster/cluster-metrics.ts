// With WORKERS > 1 a scrape reaches one worker at random: alone, its figures would jump
// from scrape to scrape. The worker that is asked forwards the question to the primary,
// which sums every worker's registry (prom-client's AggregatorRegistry) and answers.
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const ASK = 'config-api:cluster-metrics?';
const ANSWER = 'config-api:cluster-metrics';
// Above prom-client's own 5 s wait for the workers, so that its error is the one seen.
const ANSWER_TIMEOUT_MS = 6000;

interface Ask {
  type: typeof ASK;
  id: number;
}

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

/** In the primary: answer the workers' requests for the cluster-wide figures. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isMessage<Ask>(message, ASK)) return;
    const reply = (answer: Omit<Answer, 'type' | 'id'>): void => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer });
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

/** In a worker: lets the primary read `registry`, and returns how to get the whole cluster's text. */
export function clusterMetricsSource(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's listener that hands this worker's figures over.
  new AggregatorRegistry();
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (!isMessage<Answer>(message, ANSWER)) return;
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.text !== undefined) waiting?.resolve(message.text);
    else waiting?.reject(new Error(`cluster metrics: ${message.error ?? 'no answer'}`));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('cluster metrics: the primary did not answer'));
      }, ANSWER_TIMEOUT_MS);
      pending.set(id, {
        resolve: (text) => (clearTimeout(timer), resolve(text)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      process.send?.({ type: ASK, id } satisfies Ask);
    });
}
