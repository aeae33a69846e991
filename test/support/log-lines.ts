// The service logs one JSON object a line; tests read them back as objects.

export type LogLine = Record<string, unknown> & { msg?: string; level?: number; pid?: number };

export function logLines(output: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      // A line cut by a kill, or not ours: not a log line to check.
    }
  }
  return lines;
}

/** Resolves once `accept` holds for the logs, or fails after `timeoutMs`. */
export async function waitForLogs(read: () => string, accept: (lines: LogLine[]) => boolean, timeoutMs = 15_000): Promise<LogLine[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = logLines(read());
    if (accept(lines)) return lines;
    if (Date.now() > deadline) throw new Error(`the expected log lines did not come in ${timeoutMs} ms:\n${read()}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** The 5xx answers in the logs. */
function failures(lines: LogLine[]): LogLine[] {
  return lines.filter((line) => line.msg === 'request completed' && Number(line.status) >= 500);
}

/** The 5xx answers in the logs whose request has no `request failed` line naming a cause. */
function unexplained(lines: LogLine[]): LogLine[] {
  const explained = new Set(
    lines.filter((line) => line.msg === 'request failed' && line.level === 50 && String((line.err as { message?: unknown } | undefined)?.message ?? '') !== '').map((line) => line.reqId),
  );
  return failures(lines).filter((line) => !explained.has(line.reqId));
}

/**
 * The rule for faults: no 5xx without a log line that names its cause, and never key
 * material in the logs. Waits (lines are written once an event-loop turn) until `atLeast` 5xx
 * answers are logged, each with its cause, so that a test also proves that it saw some.
 */
export async function assertCausesLogged(read: () => string, secrets: readonly string[], atLeast = 1): Promise<void> {
  const lines = await waitForLogs(read, (all) => failures(all).length >= atLeast && unexplained(all).length === 0).catch(() => logLines(read()));
  const missing = unexplained(lines);
  if (missing.length > 0) throw new Error(`5xx answers without a 'request failed' line naming the cause: ${JSON.stringify(missing)}`);
  if (failures(lines).length < atLeast) throw new Error(`expected at least ${atLeast} 5xx answers in the logs, found ${failures(lines).length}`);
  const output = read();
  for (const secret of secrets) if (output.includes(secret)) throw new Error('key material in the logs');
}
