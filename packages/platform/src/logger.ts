import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Creates the structured JSON logger (pino) every process uses; `level` defaults to `info`. */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({ level: options.level ?? 'info', name: options.name ?? 'stamp' });
}
