/**
 * The Fastify instance every generated service starts from: JSON bodies only, request ids in
 * logs, security headers, the request's deadline, and what the router refuses in the service's
 * error shape. The rest comes as plugins (src/app.ts registers them): the error shape of every
 * other failure (error-handler.ts), CORS, rate limits, authentication, the routes.
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { badRequest, HttpError, notFound, statusBody } from '../errors.js';
import type { HttpTimeouts, TrustProxy } from '../config.js';
import { notAResource, takesNoBody, unrouted } from './routing.js';
import { isHost, requestTarget, requestUrl } from './serialize.js';
import { lossyNumber } from './json-numbers.js';
import { handlerDeadline } from './deadline.js';
import { boundedRegExp, isBase64, JSON_SUFFIX_MEDIA_TYPE, withoutScriptLinks } from './patterns.js';
import { requestShapeProblem } from './request-shape.js';
import { duplicateKey } from './duplicate-keys.js';
import { answerClientError, refuseConnect } from './client-errors.js';
import { RequestLog } from './request-log.js';
import { parseDate, parseDatetime } from '../values.js';

export interface AppOptions {
  readonly logLevel: string;
  readonly bodyLimit: number;
  readonly timeouts: HttpTimeouts;
  readonly trustProxy: TrustProxy;
  /** Tests pass `false` to keep their output clean. */
  readonly logger?: FastifyServerOptions['logger'];
}

/**
 * Logs are JSON lines (for log collectors), except on a terminal, where a developer reads them
 * (`npm run dev`): there pino-pretty prints one readable line per entry, in a worker thread.
 */
function loggerOptions(level: string): FastifyServerOptions['logger'] {
  if (!process.stdout.isTTY || !installed('pino-pretty')) return { level };
  return {
    level,
    transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } },
  };
}

/** Whether a package can be loaded: a project installed without pino-pretty still starts, with JSON logs. */
function installed(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

export function createApp(options: AppOptions): FastifyInstance {
  const lifecycle = new RequestLog();
  const app = Fastify({
    logger: options.logger ?? loggerOptions(options.logLevel),
    logController: lifecycle,
    genReqId: () => randomUUID(),
    bodyLimit: options.bodyLimit,
    // A client that sends its headers or body too slowly (slowloris) gets a 408 and loses the
    // connection; Node looks for them every second rather than every 30.
    requestTimeout: options.timeouts.request,
    keepAliveTimeout: options.timeouts.keepAlive,
    trustProxy: fastifyTrustProxy(options.trustProxy),
    http: {
      // A missing Host is refused by the onRequest hook below, in the service's error shape.
      requireHostHeader: false,
      headersTimeout: options.timeouts.request,
      connectionsCheckingInterval: Math.min(1000, options.timeouts.request),
    },
    clientErrorHandler: answerClientError,
    ajv: {
      customOptions: {
        // Every problem of a body in one 400. Safe for untrusted input: each keyword is linear in
        // the value but `pattern`, and patterns see at most MAX_PATTERN_INPUT characters.
        allErrors: true,
        code: { regExp: boundedRegExp },
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        allowUnionTypes: true,
        // A problem carries the value it is about (read by error-handler.ts: "…, not null").
        verbose: true,
      },
      // After ajv-formats, whose `byte`, `date-time` and `date` it replaces: a body takes the
      // datetimes and dates that the filters take and the databases keep (values.ts), no others.
      onCreate: (ajv) =>
        void ajv
          .addFormat('byte', { type: 'string', validate: isBase64 })
          .addFormat('date-time', { type: 'string', validate: (text) => parseDatetime(text) !== undefined })
          .addFormat('date', { type: 'string', validate: (text) => parseDate(text) !== undefined })
          .addFormat('uri', withoutScriptLinks(ajv.formats['uri']))
          .addFormat('uri-reference', withoutScriptLinks(ajv.formats['uri-reference'])),
    },
    routerOptions: { ignoreDuplicateSlashes: false },
    // What the router refuses before any route runs (a bad percent-encoding, a path parameter
    // longer than 100 characters) is answered in the service's error shape too.
    frameworkErrors: (error, request, reply) => {
      const status: number = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      const message =
        status === 414 ? 'a part of the path is too long' : 'the path is not valid (a bad percent-encoding)';
      request.log.info({ status, message }, 'request refused');
      void (reply as FastifyReply)
        .code(status)
        .type('application/json')
        .send(statusBody(status, message, requestUrl(request)));
    },
  });
  // Answers are written by JSON.stringify, not by serializers compiled from the route schemas: on
  // Node 20 it is as fast for these objects (bench/RESULTS.md, "Route schemas"), and it never
  // drops or coerces a value the schema did not foresee (`_count`'s answer, an after handler's field).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // A CONNECT reaches no route: Node hands it to this event, and closed the connection unanswered.
  app.server.on('connect', (_request, socket: Socket) => refuseConnect(socket));
  // Bodies are JSON objects; anything else is a 415, not text silently ignored.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  // As bytes: read as text by Fastify, bytes that are no UTF-8 would become U+FFFD unseen (parseJson).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJson);
  app.addContentTypeParser(JSON_SUFFIX_MEDIA_TYPE, { parseAs: 'buffer' }, parseJson);
  // Null until authentication says who calls, and always with auth off: handlers may read it either way.
  app.decorateRequest('user', null);
  // One hook for the runtime's own checks, and it takes a callback, not a promise: every hook is a
  // step of every request (the preValidation hook it replaces was ~5 % of the CPU of a GET of one
  // item in process; bench/RESULTS.md, "Six hooks per request to three"). What needs no say in
  // whether a request goes on happens on its arrival and its answer (request-log.ts).
  const deadline = handlerDeadline(app, options.timeouts.handler);
  const proxyWarning = options.trustProxy === false ? untrustedProxyWarning() : undefined;
  // While shutting down, answers close their connection: a kept-alive connection would hold the
  // server open long after the last request.
  let closing = false;
  lifecycle.arrived = (reply) => {
    deadline.arrived(reply);
    reply.header('x-content-type-options', 'nosniff');
    // Answers depend on who asks (ACLs, field privacy) and change with every write: no cache keeps
    // them unless a route says otherwise (the OpenAPI document, the docs page's assets).
    reply.header('cache-control', 'no-store');
    if (closing) reply.header('connection', 'close');
  };
  lifecycle.answered = deadline.answered;
  app.addHook('onRequest', (request, _reply, done) => {
    proxyWarning?.(request);
    // What no route takes is refused before any route's hooks; a body's own shape is refused as it
    // is parsed (parseJson).
    const refused = refusal(request) ?? unreadRefusal(request);
    if (refused) done(refused);
    else done();
  });
  app.addHook('preClose', async () => {
    closing = true;
    deadline.unanswered((reply) => {
      reply.header('connection', 'close');
    });
  });
  return app;
}

/** Why no route may serve `request`, whatever its body: its Host, an empty path parameter, its query's shape. */
function refusal(request: FastifyRequest): HttpError | null {
  // A Host that is no host name would become part of `_self` and `Location`; none at all is
  // HTTP/1.1's own 400 (Node's, answered here so that it has the error shape).
  const host = request.host as string | undefined;
  if (host === undefined || host === '' ? request.raw.httpVersion !== '1.0' : !isHost(host)) {
    return badRequest('the Host header is not a host name (with an optional :port)', [
      { field: 'Host', message: 'invalid' },
    ]);
  }
  // The router refuses a bad percent-encoding in the path (frameworkErrors); the query's parser
  // kept it as it was written, and `?name=%FF` matched a name of the three characters `%FF`.
  if (!percentDecodable(request.url))
    return badRequest('the query string is not valid (a bad percent-encoding)', [
      { field: 'query', message: 'has a bad percent-encoding' },
    ]);
  const repeated = repeatedSingleHeader(request.raw.rawHeaders);
  if (repeated)
    return badRequest(`the ${repeated} header is sent more than once; send it once`, [
      { field: repeated, message: 'is sent more than once' },
    ]);
  // A compressed body would be read as its bytes ("not valid JSON"): the coding is what is not
  // taken (RFC 9110 §15.5.16).
  const coding = request.headers['content-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'identity' && hasBody(request))
    return new HttpError(
      415,
      `bodies are read as sent: Content-Encoding ${coding.slice(0, 40)} is not taken; send the JSON uncompressed`,
      [{ field: 'Content-Encoding', message: 'is not taken' }],
    );
  // `/posts/` reaches `/posts/:id` with an empty key; like any URL that names nothing, a 404
  // that says so (Ramses answered trailing slashes 404 too).
  if (Object.values(request.params as Record<string, string>).includes(''))
    return notFound(notAResource(request.server, requestTarget(request)));
  // U+0000 (which PostgreSQL cannot store) and absurd nesting are a 400 on every engine, not a 500.
  return requestShapeProblem({ query: request.query, path: request.params });
}

/**
 * Headers that hold one value, which Node keeps the first of and drops the rest of, unsaid: a proxy
 * or a log in front that reads the last one sees another request than the service (another Host in
 * `_self`, another Content-Type, another caller). RFC 9112 §3.2 has a repeated Host a 400.
 */
const SINGLE_HEADERS: ReadonlyMap<number, { readonly lower: string; readonly name: string; readonly bit: number }> =
  new Map(
    (['Host', 'Content-Type', 'Authorization'] as const).map((name, i) => [
      name.length,
      { lower: name.toLowerCase(), name, bit: 1 << i },
    ]),
  );

function repeatedSingleHeader(raw: readonly string[]): string | undefined {
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    // By length first: most names are none of them, and are not lower-cased to be told so.
    const single = SINGLE_HEADERS.get(name.length);
    if (!single || name.toLowerCase() !== single.lower) continue;
    if (seen & single.bit) return single.name;
    seen |= single.bit;
  }
  return undefined;
}

/** Whether every `%` of `url`'s query starts an escape of UTF-8 (`%FF` alone is none, nor `%G1`). */
function percentDecodable(url: string): boolean {
  const query = url.indexOf('?');
  if (query === -1 || !url.includes('%', query)) return true;
  try {
    decodeURIComponent(url.slice(query + 1));
    return true;
  } catch {
    return false;
  }
}

/**
 * A request that says it has a body (a Content-Type, a length) and that no route takes: its 404
 * or 405, before the body is read. Read, the body's own problems were the answer (empty, not JSON:
 * 400; another type: 415), and the caller fixed the body of a request that could not succeed. A
 * request without a body reaches the route, or the not-found handler, as before: CORS answers
 * the preflights that carry none first.
 */
function unreadRefusal(request: FastifyRequest): HttpError | undefined {
  // The body first: `routeOptions` is an object Fastify makes on every read.
  if (request.headers['content-type'] === undefined && !hasBody(request)) return undefined;
  const refusal = request.is404 ? unrouted : request.routeOptions.config?.refusal;
  return refusal?.(request);
}

/** Whether a request comes with a body (of any length but none). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Requests that come through a proxy the service does not trust all have the proxy's address: the
 * rate limits and the login brake then count every client as one. Said once, in the log.
 */
function untrustedProxyWarning(): (request: FastifyRequest) => void {
  let warned = false;
  return (request) => {
    if (!warned && request.headers['x-forwarded-for'] !== undefined) {
      warned = true;
      request.log.warn(
        'requests come through a proxy (X-Forwarded-For) but http.trust_proxy is off: the rate limits and the login brake count every client as the proxy; set http.trust_proxy to the proxy (see README.md)',
      );
    }
  };
}

/** `n` proxies in front: the `n` nearest hops are believed (Fastify's types take no number). */
function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return typeof trust === 'boolean' ? trust : [...trust];
}

/**
 * Request bodies as JSON, as Fastify's own parser reads them (`__proto__` and `constructor`
 * keys refused: merged into an object, they would change what every object inherits), but with
 * a message that says which of the two is wrong: Fastify's says "not valid JSON" for both.
 */
function parseJson(
  request: FastifyRequest,
  body: string | Buffer,
  done: (error: Error | null, value?: unknown) => void,
): void {
  // JSON is UTF-8 (RFC 8259 §8.1): a body said to be in another charset is not taken (415), and
  // bytes that are no UTF-8 (a Latin-1 "é") are refused, not stored as U+FFFD.
  const contentType = request.headers['content-type'] ?? '';
  // Two charsets, of which one was read and a proxy may read the other, as a header sent twice (above).
  if ((contentType.match(CHARSETS) ?? []).length > 1) {
    done(
      badRequest('Content-Type names a charset twice; name it once', [
        { field: 'Content-Type', message: 'names a charset twice' },
      ]),
    );
    return;
  }
  const charset = CHARSET.exec(contentType)?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    done(
      new HttpError(415, `bodies are read as UTF-8: charset ${charset.slice(0, 40)} is not taken`, [
        { field: 'Content-Type', message: 'is not taken' },
      ]),
    );
    return;
  }
  if (typeof body !== 'string' && !isUtf8(body)) {
    done(badRequest('the request body is not valid UTF-8; send JSON encoded in UTF-8'));
    return;
  }
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') {
    // Some clients send `Content-Type: application/json` with every request: a DELETE without a
    // body is still one.
    if (WITHOUT_BODY.has(request.method) || takesNoBody(request)) done(null, undefined);
    else done(badRequest('the request body is empty; send a JSON object'));
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    done(badRequest('the request body is not valid JSON'));
    return;
  }
  // The walk only where such a key may be: written out, or hidden behind an escape (`\u005f_proto__`).
  const mayHide = text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
  const poisoned = mayHide ? poisonedKey(value) : undefined;
  if (poisoned)
    done(
      badRequest(`the request body has a "${poisoned}" key, which no field may have`, [
        { field: poisoned, message: 'is not allowed' },
      ]),
    );
  else {
    const twice = duplicateKey(text, value)?.slice(0, 100);
    const lossy = twice === undefined ? lossyNumber(text, value) : undefined;
    if (twice !== undefined)
      done(
        badRequest(`the request body names the key "${twice}" twice in one object; send it once`, [
          { field: twice, message: 'is given twice' },
        ]),
      );
    else if (lossy)
      done(
        badRequest(
          // No number field keeps a whole number past 2^53 (a big_integer's range ends there too):
          // text is the way only where text is kept (a probe's big_integer was told to take text).
          `the request body's number ${lossy.sent} ${lossy.problem}; ${lossy.problem.includes('2^53') ? 'a whole-number field, a big integer too, keeps one from -9007199254740991 to 9007199254740991: send one within that, or send it as text where text is kept (a text field, a list or a dict)' : 'send one within range'}`,
          lossy.path.length ? [{ field: lossy.path.join('.'), message: `${lossy.sent} ${lossy.problem}` }] : undefined,
        ),
      );
    else done(requestShapeProblem({ body: value }), value);
  }
}

/** The `charset` parameter of a Content-Type, quoted or not. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;
const CHARSETS = /;\s*charset\s*=/gi;

/** Methods whose requests need no body. */
const WITHOUT_BODY = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS']);

/** The first `__proto__` key, or `constructor` key holding a `prototype`, anywhere in `value`. */
function poisonedKey(value: unknown): string | undefined {
  const pending = [value];
  while (pending.length) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object') continue;
    if (Object.hasOwn(next, '__proto__')) return '__proto__';
    const constructor = Object.hasOwn(next, 'constructor')
      ? (next as Record<string, unknown>)['constructor']
      : undefined;
    if (constructor !== null && typeof constructor === 'object' && Object.hasOwn(constructor, 'prototype'))
      return 'constructor';
    // One at a time: spread into push, a list of a few hundred thousand items overflows the stack (a 500).
    for (const value of Object.values(next)) pending.push(value);
  }
  return undefined;
}
