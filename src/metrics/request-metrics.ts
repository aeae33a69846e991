// Requests by route pattern, method and status, and their latency, as Prometheus reads them
// (http_requests_total, http_request_duration_seconds). prom-client's Counter and Histogram
// validate, sort and hash the labels on every observation, a share of a cached GET's CPU that
// shows (docs/performance.md, "Figures behind the code"); here a series is found by route, then method, then
// status, in maps of strings the process already holds (not a key string built per request,
// which costs nearly as much), and the figures
// take prom-client's form only when a scrape asks. The series are bounded: route patterns
// and statuses are finite, and Node's parser accepts only known methods.
import type { Registry } from 'prom-client';

interface Series {
  readonly labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative; the last one is +Inf. */
  readonly perBucket: number[];
}

interface SampleValue {
  value: number;
  labels: Record<string, string>;
  metricName?: string;
}

/** What prom-client's registry and cluster aggregator read from a metric. */
interface MetricView {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: SampleValue[] }>;
  reset(): void;
}

export class RequestMetrics {
  /** By route, method and status. */
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();
  /** Every series, in the order they first appeared. */
  private readonly series: Series[] = [];

  /** `buckets`: upper bounds in seconds, ascending. */
  constructor(private readonly buckets: readonly number[]) {}

  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      series = { labels: { method, route, status: String(status) }, count: 0, sum: 0, perBucket: new Array<number>(this.buckets.length + 1).fill(0) };
      byStatus.set(status, series);
      this.series.push(series);
    }
    series.count += 1;
    series.sum += seconds;
    let bucket = 0;
    while (bucket < this.buckets.length && seconds > this.buckets[bucket]!) bucket += 1;
    series.perBucket[bucket]! += 1;
  }

  /** Adds the counter and the histogram to `registry`. */
  register(registry: Registry, names: { requests: string; latency: string }, help: { requests: string; latency: string }): void {
    const view = (name: string, type: MetricView['type'], helpText: string, values: () => SampleValue[]): MetricView => ({
      name,
      help: helpText,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help: helpText, type, aggregator: 'sum', values: values() }),
      reset: () => {
        this.byRoute.clear();
        this.series.length = 0;
      },
    });
    // prom-client types registerMetric for its own classes; its registry and its cluster
    // aggregator read only the members of MetricView.
    registry.registerMetric(view(names.requests, 'counter', help.requests, () => this.series.map((s) => ({ value: s.count, labels: { ...s.labels } }))) as never);
    registry.registerMetric(view(names.latency, 'histogram', help.latency, () => this.histogramValues(names.latency)) as never);
  }

  private histogramValues(name: string): SampleValue[] {
    const values: SampleValue[] = [];
    for (const series of this.series) {
      let cumulative = 0;
      series.perBucket.forEach((observed, index) => {
        cumulative += observed;
        const le = index < this.buckets.length ? String(this.buckets[index]) : '+Inf';
        values.push({ value: cumulative, labels: { ...series.labels, le }, metricName: `${name}_bucket` });
      });
      values.push({ value: series.sum, labels: { ...series.labels }, metricName: `${name}_sum` });
      values.push({ value: series.count, labels: { ...series.labels }, metricName: `${name}_count` });
    }
    return values;
  }
}
