// A SIGKILL in the middle of concurrent writes, as the crash tests need it: `writers` loops
// write one after another until enough writes are acknowledged (or some time has passed),
// then the service is killed while requests are in flight. A write that throws before the
// kill fails the test; after it, the writer stops and the write counts as cut in flight.
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

export interface KillPlan {
  writers: number;
  /** Enough acknowledged writes that the kill lands in a busy stream, not at its start. */
  killAfterAcknowledged: number;
  killAfterMs: number;
}

/** Resolves, once the service is dead, to how many writes were acknowledged and cut in flight.
 * `write(w, n)` sends the n-th write of writer w and resolves once it is acknowledged. */
export async function killUnderWriters(
  server: TestServer,
  plan: KillPlan,
  write: (writer: number, n: number) => Promise<void>,
): Promise<{ acknowledged: number; failedInFlight: number }> {
  let acknowledged = 0;
  let failedInFlight = 0;
  let killed = false;
  let kill: () => void = () => undefined;
  const killing = new Promise<void>((done) => (kill = done));

  const writer = async (w: number): Promise<void> => {
    for (let n = 0; !killed; n++) {
      try {
        await write(w, n);
      } catch (error) {
        if (!killed) throw error;
        failedInFlight++;
        return;
      }
      acknowledged++;
      if (acknowledged >= plan.killAfterAcknowledged) kill();
    }
  };
  const writers = Array.from({ length: plan.writers }, (_, w) => writer(w));
  await Promise.race([killing, new Promise((done) => setTimeout(done, plan.killAfterMs))]);
  killed = true;
  await server.kill();
  await Promise.all(writers);
  assert.ok(acknowledged > 0, 'some writes were acknowledged before the kill');
  assert.ok(failedInFlight > 0, 'the kill cut requests in flight');
  return { acknowledged, failedInFlight };
}
