/**
 * The Fastify instance every generated service starts from: JSON bodies only, the service's one
 * error shape for every failure, request ids in logs, security headers (CORS: lib/http/cors.ts).
 * A 500 says "Internal Server Error" and a request id; the details go to the log, never to the client.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
} from 'fastify';
import { HttpError, notFound, statusBody, type FieldError } from '../errors.js';
import type { HttpTimeouts, TrustProxy } from '../config.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../database.js';
import { ConstraintViolation, RecordNotFound, UnknownReference } from '../repository.js';
import { requestUrl } from './serialize.js';
import { handlerDeadline } from './deadline.js';
import { boundedRegExp } from './patterns.js';
import { requestShapeProblem } from './request-shape.js';
import { knownPath } from './routing.js';

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
  const app = Fastify({
    logger: options.logger ?? loggerOptions(options.logLevel),
    genReqId: () => randomUUID(),
    bodyLimit: options.bodyLimit,
    // A client that sends its headers or body too slowly (slowloris) gets a 408 and loses the
    // connection; Node looks for them every second rather than every 30.
    requestTimeout: options.timeouts.request,
    keepAliveTimeout: options.timeouts.keepAlive,
    trustProxy: fastifyTrustProxy(options.trustProxy),
    http: {
      headersTimeout: options.timeouts.request,
      connectionsCheckingInterval: Math.min(1000, options.timeouts.request),
    },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
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
      },
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
  // Bodies are JSON objects; anything else is a 415, not text silently ignored.
  app.removeContentTypeParser(['text/plain']);
  app.addContentTypeParser(
    /^application\/[\w.+-]*\+json$/,
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );
  handlerDeadline(app, options.timeouts.handler);
  if (options.trustProxy === false) warnOfUntrustedProxy(app);
  // While shutting down, responses close their connection: a kept-alive connection would hold the
  // server open long after the last request.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    // Answers depend on who asks (ACLs, field privacy) and change with every write: no cache keeps
    // them unless a route says otherwise (the OpenAPI document, the docs page's assets).
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('preValidation', async (request) => {
    // `/posts/` reaches `/posts/:id` with an empty key; like any URL that names nothing, a 404
    // that says so (Ramses answered trailing slashes 404 too).
    if (Object.values(request.params as Record<string, string>).includes('')) throw notFound(notAResource(request.url));
    // U+0000 (which PostgreSQL cannot store) and absurd nesting are a 400 on every engine, not a 500.
    const problem = requestShapeProblem({ body: request.body, query: request.query, path: request.params });
    if (problem) throw problem;
  });
  app.setErrorHandler(async (thrown: FastifyError, request, reply) => {
    // The database down (or too slow) is no failure of the request: a 503 the client may retry.
    const unavailable = isDatabaseUnavailable(thrown);
    if (unavailable) request.log.error({ err: thrown }, 'the database does not answer');
    const error = unavailable ? databaseUnavailable() : thrown;
    const { status, message, errors, headers } = describe(error);
    // A deliberate 503 (load shedding, /health) is not a failure: no stack trace at level error.
    if (status >= 500 && !(error instanceof HttpError)) request.log.error({ err: error }, 'request failed');
    else if (status >= 500) request.log.warn({ status, message }, 'request refused');
    else request.log.info({ status, message }, 'request refused');
    for (const [name, value] of Object.entries(headers ?? {})) reply.header(name, value);
    // An unexpected failure says nothing about itself; a deliberate HttpError (503 from /health) may.
    const body =
      status >= 500 && !(error instanceof HttpError)
        ? statusBody(status, 'Internal Server Error', requestUrl(request), { request_id: String(request.id) })
        : statusBody(status, message, requestUrl(request), {
            ...(errors?.length ? { errors } : {}),
            ...(status >= 500 ? { request_id: String(request.id) } : {}),
          });
    return reply.code(status).type('application/json').send(body);
  });
  app.setNotFoundHandler(async (request, reply) => {
    // A method the router does not know (PROPFIND…) on a known path: 405, as for any other.
    const known = knownPath(app, request.url);
    if (known) {
      return reply
        .code(405)
        .header('allow', known.allow)
        .send(statusBody(405, `${request.method} is not allowed on ${known.path}`, requestUrl(request)));
    }
    return reply.code(404).send(statusBody(404, notAResource(request.url), requestUrl(request)));
  });
  return app;
}

/**
 * Requests that come through a proxy the service does not trust all have the proxy's address: the
 * rate limits and the login brake then count every client as one. Said once, in the log.
 */
function warnOfUntrustedProxy(app: FastifyInstance): void {
  let warned = false;
  app.addHook('onRequest', async (request) => {
    if (warned || request.headers['x-forwarded-for'] === undefined) return;
    warned = true;
    request.log.warn(
      'requests come through a proxy (X-Forwarded-For) but http.trust_proxy is off: the rate limits and the login brake count every client as the proxy; set http.trust_proxy to the proxy (see README.md)',
    );
  });
}

function notAResource(url: string): string {
  return `${url.split('?')[0]} is not a resource of this service`;
}

/** `n` proxies in front: the `n` nearest hops are believed (Fastify's types take no number). */
function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return typeof trust === 'boolean' ? trust : [...trust];
}

interface Described {
  status: number;
  message: string;
  errors?: readonly FieldError[];
  headers?: Readonly<Record<string, string>>;
}

function describe(error: FastifyError | HttpError): Described {
  if (error instanceof HttpError)
    return {
      status: error.statusCode,
      message: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
      ...(error.headers ? { headers: error.headers } : {}),
    };
  if (error instanceof RecordNotFound) return { status: 404, message: error.message };
  if (error instanceof UnknownReference) {
    return {
      status: 400,
      message: `${error.field}: ${error.message}`,
      errors: [{ field: error.field, message: `${error.model} ${error.keys.map(String).join(', ')} not found` }],
    };
  }
  if (error instanceof ConstraintViolation) return constraint(error);
  if (error.validation) return validation(error);
  const status = error.statusCode ?? 500;
  if (status < 500 && error.code?.startsWith('FST_')) return { status, message: fastifyMessage(error) };
  return { status: 500, message: 'Internal Server Error' };
}

function constraint(error: ConstraintViolation): Described {
  const fields = error.fields;
  switch (error.kind) {
    case 'unique': {
      const named = fields.length ? fields : ['(unknown field)'];
      return {
        status: 409,
        message: `${named.join(', ')} must be unique, and the value is taken`,
        errors: named.map((field) => ({ field, message: 'is already taken' })),
      };
    }
    case 'foreign_key':
      return fields.length
        ? {
            status: 409,
            message: `related objects still refer to this one (${fields.join(', ')}), so it cannot be deleted`,
            errors: fields.map((field) => ({ field, message: 'has related objects that prevent deleting this one' })),
          }
        : { status: 409, message: 'other objects still refer to this one' };
    case 'not_null':
      return {
        status: 400,
        message: `${fields.join(', ')} is required`,
        errors: fields.map((field) => ({ field, message: 'is required' })),
      };
    case 'invalid':
      return {
        status: 400,
        message: 'a value does not fit its field (too long, or out of range)',
        ...(fields.length ? { errors: fields.map((field) => ({ field, message: 'does not fit' })) } : {}),
      };
  }
}

/** JSON Schema errors of a body, or of the query or path parameters: one entry per problem. */
function validation(error: FastifyError): Described {
  const context =
    error.validationContext === 'querystring' ? 'query' : error.validationContext === 'params' ? 'path' : 'body';
  const errors: FieldError[] = [];
  for (const e of error.validation ?? []) errors.push(...(context === 'body' ? bodyProblem(e) : parameterProblem(e)));
  const unique = errors.filter((e, i) => errors.findIndex((x) => x.field === e.field && x.message === e.message) === i);
  return {
    status: 400,
    message: `invalid ${context}: ${unique.map((e) => `${e.field} ${e.message}`).join('; ')}`,
    errors: unique,
  };
}

type SchemaProblem = NonNullable<FastifyError['validation']>[number];

function bodyProblem(e: SchemaProblem): FieldError[] {
  const params = e.params;
  const path = e.instancePath.replace(/^\//, '').split('/').join('.');
  switch (e.keyword) {
    case 'additionalProperties':
      return [{ field: join(path, String(params['additionalProperty'])), message: 'is not a field here' }];
    case 'required':
      return [{ field: join(path, String(params['missingProperty'])), message: 'is required' }];
    case 'type':
      return [
        path === ''
          ? { field: '(body)', message: 'must be a JSON object' }
          : { field: path, message: `must be ${typeWords(params['type'])}` },
      ];
    case 'enum':
      return [
        {
          field: path,
          message: `must be one of ${(params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        },
      ];
    case 'anyOf':
    case 'oneOf':
      return [];
    default:
      return [{ field: path || '(body)', message: e.message ?? 'is invalid' }];
  }
}

/** Query and path parameters are strings (lib/http/schemas.ts): a list is a parameter given twice. */
function parameterProblem(e: SchemaProblem): FieldError[] {
  const params = e.params;
  const name = e.instancePath.replace(/^\//, '');
  switch (e.keyword) {
    case 'additionalProperties':
      return [{ field: String(params['additionalProperty']), message: 'is not a query parameter here' }];
    case 'required':
      return [{ field: String(params['missingProperty']), message: 'is required' }];
    case 'type':
      return [{ field: name, message: 'is given more than once' }];
    default:
      return [{ field: name, message: e.message ?? 'is invalid' }];
  }
}

/** JSON Schema type names as a client reads them: `integer,string,null` → "a whole number, a string or null". */
function typeWords(type: unknown): string {
  const words: Record<string, string> = {
    integer: 'a whole number',
    number: 'a number',
    string: 'a string',
    boolean: 'true or false',
    array: 'a list',
    object: 'an object',
    null: 'null',
  };
  const list = (Array.isArray(type) ? type : String(type).split(',')).map((t: string) => words[t] ?? t);
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list.at(-1)}` : (list[0] ?? 'valid');
}

function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

function fastifyMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'send the body as application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'the request body is too large';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'the request body is empty; send a JSON object';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'the request body is not valid JSON';
    default:
      return error.statusCode === 400 && /JSON|token|prototype|constructor/i.test(error.message)
        ? 'the request body is not valid JSON (or uses __proto__ or constructor keys)'
        : error.message.split('\n')[0]!;
  }
}
