// The process logger: pino JSON lines on stdout, or on stderr when stdout carries a protocol (MCP over stdio).

import { pino, type Logger } from 'pino';

export function createLogger(level: string, fd: 1 | 2 = 1): Logger {
  return pino({ level, base: { service: 'jobs-api' } }, pino.destination(fd));
}
