// A request's stages run one after the other inside one request listener (issue 24, ADR 0013). Express's
// router matches each middleware it holds against the path and keeps its own bookkeeping between them
// (about a quarter of what a job by id allocated, ADR 0013): the stages are called here as Express would
// call them (a stage's error, passed, thrown or rejected, goes to the error handlers after the chain),
// without it.

import { IncomingMessage, ServerResponse, type RequestListener } from 'node:http';
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';

/** A stage's returned promise, if any, rejects to `next` (as Express 5 does with a handler's). */
function call(stage: RequestHandler, req: Request, res: Response, next: NextFunction): void {
  try {
    const returned = stage(req, res, next);
    if (returned instanceof Promise) returned.catch((error: unknown) => next(error ?? new Error('Rejected promise')));
  } catch (error) {
    next(error);
  }
}

/** The stages in order; an error (passed to next, thrown or rejected) skips the rest and goes to `next` with it. */
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

/** A request listener with the classes the server is to make its requests and responses of (createServer's options). */
export interface HttpApp {
  listener: RequestListener;
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * The request listener running `stages`, then on an error `failed` (the error handlers, in order; the last
 * answers every error), on requests and responses with `app`'s methods and settings: node's classes under
 * its prototypes, made once (app.handle sets the prototype of each request and response object instead,
 * which takes them off V8's fast paths: about a third of a job by id's main thread, ADR 0013). Each
 * request gets res.locals and what Express's router would set at the top (the original URL, an empty
 * base URL, no path parameters); nothing else of the router runs. `lost` hears of an error handler that
 * failed: the response is cut.
 */
export function listener(
  app: Express,
  stages: RequestHandler,
  failed: readonly ErrorRequestHandler[],
  lost: (error: unknown, res: Response) => void,
): HttpApp {
  class AppRequest extends IncomingMessage {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  class AppResponse<R extends IncomingMessage> extends ServerResponse<R> {}
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  /** The error handler at `at` with `error`; each passes what it does not answer to the next. */
  const handle = (error: unknown, req: Request, res: Response, at: number): void => {
    const cut = (failure: unknown) => {
      lost(failure, res);
      res.destroy();
    };
    const handler = failed[at];
    if (!handler) return cut(error);
    try {
      const returned: unknown = handler(error, req, res, (passed?: unknown) => handle(passed ?? error, req, res, at + 1));
      if (returned instanceof Promise) returned.catch(cut);
    } catch (failure) {
      cut(failure);
    }
  };
  return {
    IncomingMessage: AppRequest,
    ServerResponse: AppResponse,
    listener: (incoming, outgoing) => {
      const req = incoming as Request;
      const res = outgoing as Response;
      req.res = res;
      res.req = req;
      res.locals = Object.create(null) as Response['locals'];
      req.originalUrl = req.url;
      req.baseUrl = '';
      req.params = {};
      stages(req, res, (error?: unknown) => handle(error ?? new Error('No stage answered'), req, res, 0));
    },
  };
}
