// A request's logger, made only when the request logs something of its own. Fastify gives every
// request a child of the service's logger that carries its id (reqId); making one (a new
// logger object, its bindings turned into JSON text) is a fair share of what a request that
// logs nothing else costs. Nearly every request writes just its completion line
// (request-log-controller.ts), which is written through the service's logger with the id as the
// line's first field: the same text a child would write. Anything else (an error, a warning)
// makes the child then, and goes through it.
import type { FastifyBaseLogger, LogLevel } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;

type Method = 'info' | 'error' | 'debug' | 'fatal' | 'warn' | 'trace' | 'silent';

/** Whether `logger` writes lines of `level`, as pino's own `isLevelEnabled` says (Fastify's
 * logger type leaves it out). Fastify's stand-in logger, when logging is off, has none and
 * writes nothing. */
export function writesAt(logger: FastifyBaseLogger, level: LogLevel): boolean {
  const { isLevelEnabled } = logger as { isLevelEnabled?: (level: LogLevel) => boolean };
  return isLevelEnabled !== undefined && isLevelEnabled.call(logger, level);
}

export class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): LogLevel {
    return (this.made?.level ?? this.options.level ?? this.parent.level) as LogLevel;
  }

  set level(level: LogLevel) {
    this.logger.level = level;
  }

  /** pino's method: asked of the service's logger while no child is made (the same level). */
  isLevelEnabled(level: LogLevel): boolean {
    return writesAt(this.parentWhileUnmade ?? this.logger, level);
  }

  info(...args: unknown[]): void {
    this.call('info', args);
  }
  error(...args: unknown[]): void {
    this.call('error', args);
  }
  debug(...args: unknown[]): void {
    this.call('debug', args);
  }
  fatal(...args: unknown[]): void {
    this.call('fatal', args);
  }
  warn(...args: unknown[]): void {
    this.call('warn', args);
  }
  trace(...args: unknown[]): void {
    this.call('trace', args);
  }
  silent(...args: unknown[]): void {
    this.call('silent', args);
  }

  private call(method: Method, args: unknown[]): void {
    (this.logger[method] as (...rest: unknown[]) => void)(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  /** The service's logger while this request has made no child: a line written there with
   * the request id as its first field, by the name Fastify binds it to (`reqId`), reads as the child would write it. */
  get parentWhileUnmade(): FastifyBaseLogger | undefined {
    return this.made === undefined && this.options.level === undefined ? this.parent : undefined;
  }
}

/** For Fastify's `childLoggerFactory` option. */
export function requestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  // Every method a logger has, by the same names (Fastify checks them when the factory is not its own).
  return new RequestLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}
