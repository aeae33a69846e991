// A dry run (contract section 12) makes every check and write of a request in its transaction,
// then rolls it all back, change record included. The work's result is carried out of the
// transaction by a throw, which is what rolls it back: the transaction's runner needs no
// notion of a dry run.

class DryRunRollback extends Error {
  constructor(readonly result: unknown) {
    super('dry run');
  }
}

/** Runs `work` in the transaction `run` opens; for a dry run, rolled back, resolving to what
 * `work` resolved to. */
export async function rolledBackIf<Tx, T>(dryRun: boolean, run: (work: (tx: Tx) => Promise<T>) => Promise<T>, work: (tx: Tx) => Promise<T>): Promise<T> {
  if (!dryRun) return run(work);
  try {
    return await run(async (tx) => {
      throw new DryRunRollback(await work(tx));
    });
  } catch (error) {
    if (error instanceof DryRunRollback) return error.result as T;
    throw error;
  }
}
