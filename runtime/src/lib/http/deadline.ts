/**
 * `http.handler_timeout`: a request still unanswered after this many milliseconds (a slow event
 * handler, a query waiting on a lock) is answered 503 with Retry-After. An event handler cannot be
 * stopped from outside, but it is no longer waited for (`untilTimeUp`): its transaction is undone
 * at once, and what it does after that fails (its transaction has ended), so that a handler that
 * never returns holds no lock. A probe's handler awaiting a supplier that never answered held
 * SQLite's writer, and every write of the service failed, for five minutes. Its `signal` is aborted
 * then (`requestSignal`, `Event.signal`: what a handler passes to fetch). A transaction asks
 * `assertInTime` before it commits, and before each handler: a request already answered 503
 * writes nothing, and runs no more handlers (a probe's after handler told a supplier of writes
 * that were undone).
 *
 * Fastify 5's own `handlerTimeout` is not used: on Node 20 its timer is cleared as soon as a
 * request's body has been read (the request stream's `close`), so it never fires for writes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.js';

const timedOut = new WeakSet<FastifyRequest>();

/** Per request whose code asked for it, aborted when the request is answered 503 for taking too long. */
const signals = new WeakMap<FastifyRequest, AbortController>();

/** Marks `request` answered 503 for taking too long, and aborts its signal. */
function timeUp(request: FastifyRequest): void {
  timedOut.add(request);
  signals.get(request)?.abort(handlerTimedOut());
}

/** Where a reply is in `InFlight` (-1: not there); a decoration, so every reply has the same shape. */
const SLOT = Symbol('svc.deadlineSlot');
type Slotted = FastifyReply & { [SLOT]: number };

/**
 * The replies in flight, each in a slot of an array that is reused, with when its request
 * arrived (performance.now()). Not a Map: with one, under writes (twenty requests in flight),
 * 1 MB of answered requests was copied and then promoted per scavenge, and a PATCH spent 13 % of
 * its CPU in the collector (bench/RESULTS.md, `npm run bench -- gc`). As we read V8, a Map's table
 * is replaced as entries come and go, and each replaced table keeps the replies it held and a link
 * to the next: once one had outlived the young generation, the chain kept every later one alive
 * through minor collections. Slots hold nothing once freed.
 */
class InFlight {
  readonly #replies: (Slotted | undefined)[] = [];
  readonly #arrived: number[] = [];
  readonly #free: number[] = [];
  size = 0;

  add(reply: FastifyReply, arrived: number): void {
    const slot = this.#free.pop() ?? this.#replies.length;
    this.#replies[slot] = reply as Slotted;
    this.#arrived[slot] = arrived;
    (reply as Slotted)[SLOT] = slot;
    this.size++;
  }

  remove(reply: FastifyReply): void {
    const slot = (reply as Slotted)[SLOT];
    if (slot < 0 || this.#replies[slot] !== reply) return;
    this.#replies[slot] = undefined;
    (reply as Slotted)[SLOT] = -1;
    this.#free.push(slot);
    this.size--;
  }

  forEach(each: (reply: FastifyReply, arrived: number) => void): void {
    for (let slot = 0; slot < this.#replies.length; slot++) {
      const reply = this.#replies[slot];
      if (reply) each(reply, this.#arrived[slot]!);
    }
  }
}

/** What app.ts calls as each request arrives and is answered (request-log.ts), and as the app closes. */
export interface RequestDeadline {
  /** The request's time starts. */
  readonly arrived: (reply: FastifyReply) => void;
  /** The request is answered (or was answered 503 by the sweep itself). */
  readonly answered: (reply: FastifyReply) => void;
  /** Each reply whose answer has not been sent yet. */
  readonly unanswered: (each: (reply: FastifyReply) => void) => void;
}

/**
 * One sweep over the requests in flight every tenth of the timeout (at most a second), instead of
 * a timer and a `close` listener per request: those were ~3 % of the CPU of a GET of one item
 * (bench/RESULTS.md). A request times out between `ms` and `ms` plus one sweep. An answered
 * request leaves the replies in flight at once (`answered`): kept until the next sweep, a
 * second's worth of replies outlived the young generation, and the collector's work cost a GET of
 * one item ~9 %. A request whose client went away before its answer leaves at the next sweep.
 *
 * It registers no hook per request itself: each hook is a step of every request, and app.ts calls
 * `arrived` and `answered` beside its other work at each request's arrival and answer.
 */
export function handlerDeadline(app: FastifyInstance, ms: number): RequestDeadline {
  const inFlight = new InFlight();
  app.decorateReply(SLOT, -1);
  const period = Math.min(1000, Math.max(1, Math.floor(ms / 10)));
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = performance.now();
    inFlight.forEach((reply, arrived) => {
      // Answered, or the client is gone: either way, nothing left to time out.
      if (reply.sent || reply.raw.destroyed) inFlight.remove(reply);
      else if (now - arrived >= ms) {
        inFlight.remove(reply);
        timeUp(reply.request);
        // A body still arriving is the client's slowness, not the service's: no Retry-After (a
        // probe's body of a byte every two seconds was invited back), and the connection closed,
        // since what is left of the body cannot be read as a next request. (`complete` is false only
        // on a connection: an injected request has no such flag.)
        if (reply.request.raw.complete === false) void reply.header('connection', 'close').send(bodyTooSlow());
        else void reply.send(handlerTimedOut());
      }
    });
    if (inFlight.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  app.addHook('onClose', (_app, done) => {
    clearInterval(sweeper);
    done();
  });
  return {
    arrived: (reply) => {
      inFlight.add(reply, performance.now());
      sweeper ??= setInterval(sweep, period).unref();
    },
    answered: (reply) => inFlight.remove(reply),
    unanswered: (each) =>
      inFlight.forEach((reply) => {
        if (!reply.sent) each(reply);
      }),
  };
}

/** Throws (undoing the transaction) once the request has been answered 503 for taking too long. */
export function assertInTime(request: FastifyRequest): void {
  if (timedOut.has(request)) throw handlerTimedOut();
}

/**
 * Aborted once `request` is answered 503 for taking too long (its reason that 503): what a handler
 * passes to `fetch` or any other wait of its own, which then ends with the request's time.
 */
export function requestSignal(request: FastifyRequest): AbortSignal {
  let controller = signals.get(request);
  if (!controller) {
    controller = new AbortController();
    if (timedOut.has(request)) controller.abort(handlerTimedOut());
    signals.set(request, controller);
  }
  return controller.signal;
}

/**
 * What `work` (user code: an event handler, a processor) gives, or the request's 503 as soon as its
 * time is up, whichever comes first: its transaction is then undone without waiting for it.
 * `late`: told of an error `work` throws after that, which nobody waits for any more (not of the
 * abort it was given).
 */
export function untilTimeUp<T>(request: FastifyRequest, work: Promise<T>, late: (error: unknown) => void): Promise<T> {
  const signal = requestSignal(request);
  return new Promise<T>((resolve, reject) => {
    const up = () => reject(signal.reason as Error);
    if (signal.aborted) up();
    else signal.addEventListener('abort', up, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', up);
        resolve(value);
      },
      // What the work threw, as it threw it (user code may throw anything).
      (error: Error) => {
        signal.removeEventListener('abort', up);
        if (signal.aborted && error !== signal.reason) late(error);
        reject(error);
      },
    );
  });
}

/**
 * The end of a route's work, however late: once the request was answered 503 for taking too long,
 * what the work returns or throws has nobody to go to (and the log already has the 503).
 */
export async function untilAnswered<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  work: Promise<T>,
): Promise<T | FastifyReply> {
  try {
    const result = await work;
    return timedOut.has(request) ? reply : result;
  } catch (error) {
    if (timedOut.has(request)) return reply;
    throw error;
  }
}

function bodyTooSlow(): HttpError {
  return new HttpError(408, 'the request body did not arrive in time (http.handler_timeout); nothing of it was read');
}

function handlerTimedOut(): HttpError {
  return new HttpError(
    503,
    'the request took longer than the service allows (http.handler_timeout); nothing it changed was saved',
    undefined,
    { 'retry-after': '1' },
  );
}
