// Where a machine's CPU went during a load: the whole machine's busy time (/proc/stat), and the
// share of it that the database server's processes took (every process of that command name,
// its connection backends included). On a 2-core machine this tells whether a write rate is
// held back by the service or by the cores themselves: if the machine is busy on both cores
// during one instance's load, a second instance has no CPU to add.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks (10 ms, USER_HZ 100) a snapshot counts. */
export interface CpuSnapshot {
  /** All cores' busy ticks: everything but idle and iowait. */
  readonly busy: number;
  /** All cores' ticks, busy or not. */
  readonly total: number;
  /** Ticks of the processes named in the snapshot's call, summed. */
  readonly named: number;
}

/** Ticks of every process whose command is one of `names` (postgres, mariadbd): utime, stime
 * and their ended children's (a PostgreSQL backend that exits between snapshots is counted by
 * its postmaster's cutime once reaped). */
function namedTicks(names: readonly string[]): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!names.includes(command)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // The process ended while being read.
    }
  }
  return ticks;
}

export function cpuSnapshot(names: readonly string[]): CpuSnapshot {
  const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
  const ticks = cpu!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are the unused time.
  const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const unused = ticks[3]! + ticks[4]!;
  return { busy: total - unused, total, named: namedTicks(names) };
}

/** Between two snapshots: how many cores were busy on average, and how many of them the named processes used. */
export function coresBusy(before: CpuSnapshot, after: CpuSnapshot, cores: number): { machine: number; named: number } {
  const total = after.total - before.total;
  if (total <= 0) return { machine: Number.NaN, named: Number.NaN };
  return {
    machine: ((after.busy - before.busy) / total) * cores,
    named: ((after.named - before.named) / total) * cores,
  };
}
