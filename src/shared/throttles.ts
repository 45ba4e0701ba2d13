// Abuse throttles, per server and in memory (not billing: the metered windows are in the state store):
// failed API keys per client address, overage changes per account, and calls of the free MCP tools
// per account. Each answers 429 rate_limited with Retry-After, before any store call.

import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError, retryAfter, retrySeconds } from '../errors.js';
import type { AppContext } from '../context.js';

/** The throttles and their limits: `points` in any `seconds` (docs/usage-and-limits.md lists them). */
export const THROTTLES = {
  failedKeys: {
    points: 100,
    seconds: 60,
    refusal: 'Too many requests with an API key that is not valid came from this address (100 a minute at most)',
  },
  overageChanges: {
    points: 10,
    seconds: 60,
    refusal: 'The overage setting of this account was changed too often (PUT /v1/account/overage and set_overage: 10 a minute at most)',
  },
  freeTools: {
    points: 120,
    seconds: 60,
    refusal:
      'Too many calls of the free MCP tools (list_fields, get_usage, set_confirmation_level, read_file, search_docs: 120 a minute per account at most)',
  },
} as const;

export type ThrottleName = keyof typeof THROTTLES;

function refused(name: ThrottleName, msBeforeNext: number): ApiError {
  return new ApiError('rate_limited', `${THROTTLES[name].refusal}; retry in ${retrySeconds(msBeforeNext)} seconds (Retry-After).`, {
    headers: retryAfter(msBeforeNext),
  });
}

export class Throttles {
  private readonly limiters = Object.fromEntries(
    Object.entries(THROTTLES).map(([name, t]) => [name, new RateLimiterMemory({ points: t.points, duration: t.seconds, keyPrefix: name })]),
  ) as Record<ThrottleName, RateLimiterMemory>;

  /** Takes one point for `key`; throws 429 rate_limited when none is left in this window. */
  async take(name: ThrottleName, key: string): Promise<void> {
    try {
      await this.limiters[name].consume(key);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw refused(name, error.msBeforeNext);
      throw error;
    }
  }

  /** Throws 429 rate_limited when `key` has used every point of this window (nothing is taken). */
  async check(name: ThrottleName, key: string): Promise<void> {
    const state = await this.limiters[name].get(key);
    if (state && state.consumedPoints >= THROTTLES[name].points) throw refused(name, state.msBeforeNext);
  }

  /** Counts one point for `key`, refusing nothing now (the next check refuses). */
  async count(name: ThrottleName, key: string): Promise<void> {
    await this.limiters[name].penalty(key);
  }
}

const perService = new WeakMap<AppContext, Throttles>();

/** The throttles of one running service: the HTTP routes and the MCP tools of it share them. */
export function throttlesOf(ctx: AppContext): Throttles {
  let throttles = perService.get(ctx);
  if (!throttles) perService.set(ctx, (throttles = new Throttles()));
  return throttles;
}
