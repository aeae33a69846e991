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
