/**
 * `[cors]` in service.ini, by @fastify/cors: the allowed origins get `Access-Control-Allow-Origin`
 * (and `-Credentials` with `cors.allow_credentials`) on every answer, and their preflight requests
 * are answered before any other hook runs (authentication, rate limits). Only a real preflight
 * (`Origin` and `Access-Control-Request-Method`) is the plugin's: any other OPTIONS reaches its route,
 * which answers with `Allow` (or 405) as with CORS off.
 */
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

export interface CorsSettings {
  readonly enable: boolean;
  readonly allowOrigins: readonly string[];
  readonly allowCredentials: boolean;
}

/**
 * Browsers hide other headers from scripts: these are what clients of the API read. (Written as
 * sent, here and below: the plugin would join a list on every request.)
 */
const EXPOSED_HEADERS = 'ETag, Location, Retry-After';
/** What a preflight may ask for; a method a path does not serve is then its 405. */
const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/** CORS for the whole service (a fastify-plugin: its hooks apply to every route); nothing when off. */
export const cors = fp<CorsSettings>(
  async (app, settings) => {
    if (settings.enable) await app.register(fastifyCors, corsOptions(settings));
  },
  { name: 'cors', fastify: '5.x' },
);

function corsOptions(settings: CorsSettings) {
  const actual: FastifyCorsOptions = {
    // `*` never goes with credentials (config.ts refuses the pair), so it can be said as `*`.
    origin: settings.allowOrigins.includes('*') ? '*' : [...settings.allowOrigins],
    credentials: settings.allowCredentials,
    exposedHeaders: EXPOSED_HEADERS,
    preflight: false,
  };
  const preflight: FastifyCorsOptions = { ...actual, preflight: true, methods: METHODS, maxAge: 600 };
  // Without an Origin there is nothing to allow; the answer still says it varies with Origin.
  const none: FastifyCorsOptions = { origin: false };
  return {
    hook: 'onRequest' as const,
    // The options are made once; a request only picks one, by its headers.
    delegator: (request: FastifyRequest, callback: (error: Error | null, options: FastifyCorsOptions) => void) =>
      callback(null, request.headers.origin === undefined ? none : isPreflight(request) ? preflight : actual),
  };
}

function isPreflight(request: FastifyRequest): boolean {
  return request.headers['access-control-request-method'] !== undefined;
}

/** Whether an `Origin` is one of `cors.allow_origins` (`*`: any, unless credentials are allowed). */
export function allowedOrigin(origin: string, settings: CorsSettings): boolean {
  return settings.allowOrigins.includes(origin) || (settings.allowOrigins.includes('*') && !settings.allowCredentials);
}
