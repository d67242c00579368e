/**
 * The HTTP edge of the error registry: every failure leaves as an RFC 9457
 * application/problem+json document `{type, title, status, detail, code}`.
 * AppError keeps its code; errors raised by Express' own parsers are mapped
 * to registry codes; anything else is a generic 500 whose detail gives only
 * the request id, and the real error goes to the log under that id.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';

import { AppError } from '../errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Writes `error` as a problem document; closes the connection if the request body is still arriving. */
export function sendProblem(req: Request, res: Response, error: AppError, extra: Record<string, unknown> = {}): void {
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  // An unread body (an upload refused early) would otherwise have to be read
  // to the end before the connection could carry another request.
  if (!req.complete) res.setHeader('Connection', 'close');
  res.locals.problemCode = error.code; // for the metrics (metrics.ts)
  res.status(error.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify({ ...error.toProblem(), ...extra }));
}

/** Maps errors thrown by body-parser and other Express internals onto registry codes. */
function fromExpressError(err: { type?: unknown; status?: unknown; statusCode?: unknown; message?: unknown }): AppError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_request', 'The request body is not valid JSON');
    case 'entity.too.large':
      return new AppError('payload_too_large', 'The JSON body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.size.invalid':
    case 'entity.verify.failed':
    case 'stream.encoding.set':
    case 'parameters.too.many':
      return new AppError('invalid_request', typeof err.message === 'string' ? err.message : 'The request body cannot be read');
    case 'request.aborted':
      return new AppError('invalid_request', 'The client ended the request before its body was complete');
    default:
      return null;
  }
}

/** Express error handler; register it last. */
export function errorMiddleware(): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const log = res.locals.log ?? req.app.locals.logger;
    const appError = err instanceof AppError ? err : fromExpressError((err ?? {}) as Record<string, unknown>);
    if (res.headersSent) {
      // Nothing sensible can follow a started answer: end the exchange.
      log?.warn({ err }, 'error after the answer started');
      res.destroy();
      return;
    }
    if (appError) {
      if (appError.status >= 500) log?.warn({ code: appError.code, detail: appError.message, err: appError.cause }, 'request failed');
      sendProblem(req, res, appError);
      return;
    }
    const requestId = String(res.locals.requestId ?? 'unknown');
    log?.error({ err }, 'unexpected error');
    sendProblem(req, res, new AppError('internal_error', `An unexpected error occurred; quote request id ${requestId} when reporting it`));
  };
}

/** 404 for every path no route claims. */
export function notFound(): RequestHandler {
  return (req, _res, next) => {
    next(new AppError('not_found', `No endpoint at ${req.method} ${req.path}`));
  };
}
