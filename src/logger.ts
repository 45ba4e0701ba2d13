// The process logger: pino JSON lines on stdout.

import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'jobs-api' } });
}
