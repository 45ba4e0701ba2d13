// One pino line per request, carrying the request id; only method and URL are logged, never headers (keys).
// Lines of refused anonymous requests (401, and the 429 of the failed-key throttle) are capped per minute
// and summed up in one line, so a client hammering with bad keys cannot fill the disk.

import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import type { Request, Response } from 'express';
import type { ErrorCode } from '../errors.js';
import { requestIdOf } from './request-id.js';

/** Lines a minute of one kind before they are only counted. */
export const LINES_PER_MINUTE = 60;

/** At most `perMinute` lines a minute; past that they are counted, and the count is logged when the minute ends. */
export class LineBudget {
  private windowStart = Number.NEGATIVE_INFINITY;
  private used = 0;
  private suppressed = 0;
  private flush: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly kind: string,
    private readonly perMinute = LINES_PER_MINUTE,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when this line may be written. */
  allow(): boolean {
    const now = this.now();
    if (now - this.windowStart >= 60_000) {
      this.summarise();
      this.windowStart = now;
      this.used = 0;
    }
    if (this.used < this.perMinute) {
      this.used++;
      return true;
    }
    if (this.suppressed++ === 0) {
      this.flush = setTimeout(() => this.summarise(), Math.max(0, this.windowStart + 60_000 - now));
      this.flush.unref();
    }
    return false;
  }

  private summarise(): void {
    clearTimeout(this.flush);
    if (this.suppressed === 0) return;
    this.logger.warn(
      { kind: this.kind, suppressed: this.suppressed, per_minute: this.perMinute },
      `${this.suppressed} more ${this.kind} not logged one by one in the last minute`,
    );
    this.suppressed = 0;
  }
}

/**
 * A request's line is an error only when the service failed (internal_error, or a failure nothing
 * catalogued); an expected refusal of the service (a catalog not published yet, a timeout) is a warning,
 * and a client's mistake, or what it asked for that is not published, is information.
 */
export function levelOf(status: number, code: ErrorCode | undefined): 'error' | 'warn' | 'info' {
  if (status < 500) return 'info';
  if (code === undefined || code === 'internal_error') return 'error';
  return code === 'format_unavailable' ? 'info' : 'warn';
}

export function requestLog(logger: Logger) {
  const refusedAnonymous = new LineBudget(logger, 'requests refused without a valid API key');
  return pinoHttp({
    logger,
    genReqId: (_req, res) => requestIdOf(res as Response),
    customProps: (_req, res) => ({ request_id: requestIdOf(res as Response) }),
    customLogLevel: (_req, res) => {
      const anonymous = res.statusCode === 401 || (res.statusCode === 429 && !(res as Response).locals?.caller);
      if (anonymous && !refusedAnonymous.allow()) return 'silent';
      return levelOf(res.statusCode, (res as Response).locals?.errorCode as ErrorCode | undefined);
    },
    serializers: {
      req: (req: Request) => ({ method: req.method, url: req.url }),
    },
  });
}
