// Gives every request an id, sent back as X-Request-Id and quoted in error bodies and log lines.

import type { NextFunction, Request, Response } from 'express';
import { newRequestId } from '../shared/ids.js';

export function requestId() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = newRequestId();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}

export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'unknown';
}
