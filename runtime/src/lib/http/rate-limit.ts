/**
 * `rate_limit.writes` and `rate_limit.auth`: requests per client address (`request.ip`, which
 * follows `http.trust_proxy`; an IPv6 address by its /64: client-address.ts) and window, counted
 * by @fastify/rate-limit. Over the limit: 429 with Retry-After and the service's error body. The
 * counts live in each instance's memory: with N instances behind a balancer a client gets up to N
 * times the limit.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { RateLimits } from '../config.js';
import { HttpError } from '../errors.js';
import { clientOf } from './client-address.js';
import { hooksOf, methodsOf, WRITE_METHODS as WRITES } from './routing.js';

/** Client addresses remembered per limit; the oldest are forgotten first. */
const REMEMBERED_CLIENTS = 10_000;

type Limiter = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface RateLimitOptions {
  readonly limits: RateLimits;
  /** Where the auth routes live (`/v1/auth/`). */
  readonly authPrefix: string;
}

/** The limits that are on (not 0), for every route (a fastify-plugin). */
export const rateLimits = fp<RateLimitOptions>(
  async (app, { limits, authPrefix }) => {
    if (limits.writes === 0 && limits.auth === 0) return;
    await app.register(rateLimit, {
      global: false,
      cache: REMEMBERED_CLIENTS,
      errorResponseBuilder: (_request, context) =>
        new HttpError(429, `too many requests from your address; try again in ${context.after}`, undefined, {
          'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
        }),
    });
    const limiter = (max: number): Limiter | null =>
      max === 0 ? null : (app.rateLimit({ max, timeWindow: limits.window, keyGenerator: clientOf }) as Limiter);
    const writes = limiter(limits.writes);
    const auth = limiter(limits.auth);
    // Each route gets the limit that counts it when it is made (every route is made after this
    // plugin): reads, which no limit counts, run no hook for it.
    app.addHook('onRoute', (route) => {
      const hook = route.url.startsWith(authPrefix)
        ? counting(auth, () => true)
        : methodsOf(route).some((m) => WRITES.has(m))
          ? counting(writes, (request) => WRITES.has(request.method))
          : null;
      if (hook) route.onRequest = [...hooksOf(route.onRequest), hook];
    });
  },
  { name: 'rate-limits', fastify: '5.x' },
);

/** The hook of a limit for the requests it counts (a callback hook: no promise for the others); none when the limit is off. */
function counting(limit: Limiter | null, counts: (request: FastifyRequest) => boolean): onRequestHookHandler | null {
  if (!limit) return null;
  return (request, reply, done) => {
    if (counts(request)) limit(request, reply).then(() => done(), done);
    else done();
  };
}
