// One pino line per request, carrying the request id; only method and URL are logged, never headers (keys).
// Lines of refused anonymous requests (401, and the 429 of the failed-key throttle) are capped per minute
// and summed up in one line, so a client hammering with bad keys cannot fill the disk.

import type { Logger } from 'pino';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
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

/**
 * The request's line, written when its answer is finished or its connection closes: request id, method
 * and URL, status, milliseconds. Written with the service's logger at the level of levelOf, without a
 * logger of its own for each request: pino-http made two child loggers a request (their bindings
 * serialised at once, even when the line was not written), about a tenth of a metered request's main
 * thread (docs/adr/0013-request-overhead.md, "The request line").
 */
export function requestLog(logger: Logger): RequestHandler {
  const refusedAnonymous = new LineBudget(logger, 'requests refused without a valid API key');
  return (req: Request, res: Response, next: NextFunction) => {
    const started = Date.now();
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      const anonymous = res.statusCode === 401 || (res.statusCode === 429 && !res.locals?.caller);
      const level = levelOf(res.statusCode, res.locals?.errorCode as ErrorCode | undefined);
      if (!logger.isLevelEnabled(level) || (anonymous && !refusedAnonymous.allow())) return;
      logger[level](
        {
          request_id: requestIdOf(res),
          req: { method: req.method, url: req.originalUrl },
          res: { statusCode: res.statusCode },
          responseTime: Date.now() - started,
        },
        !res.writableFinished ? 'request aborted' : res.statusCode >= 500 ? 'request errored' : 'request completed',
      );
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
