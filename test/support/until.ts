// Polling for a state a test waits for, with a deadline that says what did not happen.

/** Resolves once `check` holds; fails after `timeoutMs`, naming `what` did not happen. */
export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, everyMs));
  }
}
