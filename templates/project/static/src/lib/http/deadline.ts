/**
 * `http.handler_timeout`: Fastify answers 503 when a request takes longer, and aborts
 * `request.signal` with FST_ERR_HANDLER_TIMEOUT. The work goes on (an event handler cannot be
 * stopped from outside), so a transaction looks at the signal before it commits: a request that
 * was already answered 503 writes nothing.
 */
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../errors.js';

const TIMEOUT_CODE = 'FST_ERR_HANDLER_TIMEOUT';

export function isHandlerTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === TIMEOUT_CODE;
}

/** The answer to a request that ran out of time. */
export function handlerTimedOut(): HttpError {
  return new HttpError(
    503,
    'the request took longer than the service allows (http.handler_timeout); nothing it changed was saved',
    undefined,
    { 'retry-after': '1' },
  );
}

/** Throws (undoing the transaction) once the request has been answered 503 for taking too long. */
export function assertInTime(request: FastifyRequest): void {
  // A client that hangs up aborts the signal too; its request still completes: only the timeout undoes it.
  if (request.signal.aborted && isHandlerTimeout(request.signal.reason)) throw handlerTimedOut();
}
