// A request's stages run one after the other inside one Express middleware (issue 24, ADR 0013). Express's
// router matches each middleware it holds against the path and keeps its own bookkeeping between them
// (about a quarter of what a job by id allocated, ADR 0013): the stages are called here as Express would
// call them (a stage's error, thrown or rejected, goes to the error handlers after the chain), without it.

import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** A stage's returned promise, if any, rejects to `next` (as Express 5 does with a handler's). */
function call(stage: RequestHandler, req: Request, res: Response, next: NextFunction): void {
  try {
    const returned = stage(req, res, next);
    if (returned instanceof Promise) returned.catch((error: unknown) => next(error ?? new Error('Rejected promise')));
  } catch (error) {
    next(error);
  }
}

/** The stages in order; an error (passed to next, thrown or rejected) skips the rest and goes to the error handlers. */
export function inOrder(stages: readonly RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let at = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      if (at === stages.length) return next();
      call(stages[at++]!, req, res, step);
    };
    step();
  };
}

/** The stage for requests whose path passes `test`; any other request goes past it. */
export function where(test: (path: string) => boolean, stage: RequestHandler): RequestHandler {
  return (req, res, next) => (test(req.path) ? stage(req, res, next) : next());
}
