// For `npm run bench:auth`: the share of a service's CPU spent in given functions, read from
// the V8 CPU profile it wrote (node --cpu-prof), within given time windows. A share is
// measured within one process over the same moments, so, unlike the CPU time of two processes
// compared with each other, it hardly moves with what else the machine is doing: a neighbour
// that slows the service down slows the measured functions and the rest alike.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  /** µs, on the monotonic clock process.hrtime() reads too. */
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A span of monotonic time, in µs (process.hrtime.bigint() / 1000n). */
export interface Window {
  readonly from: number;
  readonly to: number;
}

export interface Share {
  /** Samples in which the process ran (not idle). */
  readonly busy: number;
  /** Of those, samples with one of the functions on the stack (their callees included). */
  readonly inside: number;
}

/** The profile `pid` wrote into `dir` when it exited. */
export function readProfile(dir: string, pid: number): CpuProfile {
  const name = readdirSync(dir).find((file) => file.includes(`.${pid}.`) && file.endsWith('.cpuprofile'));
  if (name === undefined) throw new Error(`no CPU profile of process ${pid} in ${dir}`);
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile;
}

/** For each window, how many samples were busy and how many of those ran inside code of the
 * files `inside` names (their ends, e.g. "plugins/authentication.js") or in what that code
 * calls — but not past a call back into Fastify: a hook's done() runs the next hooks and the
 * handler on its own stack, which is not the hook's work. By file, not by function name: V8
 * reports a function it inlined under its caller's name. */
export function shares(profile: CpuProfile, windows: readonly Window[], inside: readonly string[]): Share[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const matches = (node: ProfileNode): boolean => inside.some((file) => node.callFrame.url.endsWith(file));
  const isFastify = (node: ProfileNode): boolean => node.callFrame.url.includes('/node_modules/fastify/');
  // Walking from a sample's frame towards the root: one of the files before any Fastify frame.
  const within = new Map<number, boolean>();
  const isWithin = (id: number): boolean => {
    let known = within.get(id);
    if (known === undefined) {
      const node = byId.get(id)!;
      const up = parent.get(id);
      known = matches(node) || (!isFastify(node) && up !== undefined && isWithin(up));
      within.set(id, known);
    }
    return known;
  };
  const counts = windows.map(() => ({ busy: 0, inside: 0 }));
  let time = profile.startTime;
  profile.samples.forEach((id, i) => {
    time += profile.timeDeltas[i]!;
    const at = windows.findIndex((window) => time >= window.from && time < window.to);
    if (at < 0 || byId.get(id)!.callFrame.functionName === '(idle)') return;
    counts[at]!.busy += 1;
    if (isWithin(id)) counts[at]!.inside += 1;
  });
  return counts;
}
