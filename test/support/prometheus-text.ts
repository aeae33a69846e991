// Reads samples back from a Prometheus text exposition, whatever the order of the labels.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function samples(text: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, '$1');
    found.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return found;
}

/** The value of the one sample with this name and these labels (others may exist), or 0. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const sample = samples(text).find((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value));
  return sample?.value ?? 0;
}

/** The route label of a request for one entry. */
export const ITEM_ROUTE = '/:lang/api/config/:resource/:id';
