/**
 * One structured logger per component: JSON lines (pino), each with the
 * component's name, so that the logs of every process of a cluster read alike.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  /** Minimum level: trace, debug, info, warn, error, fatal, silent (default info, or K8TS_LOG_LEVEL). */
  readonly level?: string;
  /** Where to write (default stderr). */
  readonly destination?: NodeJS.WritableStream;
}

export function newLogger(component: string, options: LoggerOptions = {}): Logger {
  const level = options.level ?? process.env.K8TS_LOG_LEVEL ?? 'info';
  return pino(
    { name: component, level, base: { component, pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    (options.destination ?? process.stderr) as pino.DestinationStream,
  );
}
