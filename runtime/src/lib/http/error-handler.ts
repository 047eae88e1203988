/**
 * The service's one error shape for every failure (lib/errors.ts `statusBody`), as a
 * fastify-plugin over the whole app: the error handler turns what a route throws into its status
 * and body (a database that does not answer: 503; a constraint: 409 or 400; a body or query the
 * schemas refuse: 400 naming each problem), and a path that is no route is a 404, or a 405 when
 * only its method is unknown (PROPFIND…). A 500 says "Internal Server Error" and a request id; the
 * details go to the log, never to the client.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError, statusBody, type FieldError } from '../errors.js';
import {
  databaseBusy,
  databaseMismatch,
  databaseUnavailable,
  isDatabaseBusy,
  isDatabaseUnavailable,
  isSchemaMismatch,
} from '../database.js';
import { ConstraintViolation, RecordNotFound, UnknownReference } from '../repository.js';
import { requestUrl } from './serialize.js';
import { unrouted } from './routing.js';
import { thrownBy } from '../events.js';
import { bodyProblem, type SchemaProblem } from './problem-words.js';

export const errors = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler(async (thrown: FastifyError, request, reply) => {
      // The database down (or too slow), or every connection to it busy, is no failure of the
      // request: a 503 the client may retry.
      const busy = isDatabaseBusy(thrown);
      if (busy)
        request.log.warn({ err: thrown }, 'every database connection stayed busy: more work at once than they carry');
      const unavailable = !busy && isDatabaseUnavailable(thrown);
      if (unavailable) request.log.error({ err: thrown }, 'the database does not answer');
      const mismatch = !unavailable && isSchemaMismatch(thrown);
      if (mismatch)
        request.log.error(
          { err: thrown },
          'the database lacks a table or column this service uses: was it migrated by another version? Run the version that migrated it, or npm run migrate with this one',
        );
      const error = busy
        ? databaseBusy()
        : unavailable
          ? databaseUnavailable()
          : mismatch
            ? databaseMismatch()
            : thrown;
      const { status, message, errors: problems, headers } = describe(error);
      // A refusal the code meant (an HttpError of an error status); one of another status (a
      // handler's `new HttpError(999, …)`) is a failure like any other: Fastify would have
      // answered it in its own shape, with its own words.
      const deliberate = error instanceof HttpError && isErrorStatus(error.statusCode);
      // A deliberate 503 (load shedding, /health) is not a failure: no stack trace at level error.
      if (status >= 500 && !deliberate) {
        const by = typeof error === 'object' && error !== null ? thrownBy.get(error) : undefined;
        request.log.error(
          { err: error, ...(by ? { thrown_by: by } : {}) },
          by ? `request failed in ${by}` : 'request failed',
        );
      } else if (status >= 500) request.log.warn({ status, message }, 'request refused');
      else request.log.info({ status, message }, 'request refused');
      // What the answer had said of a success (a change's Location, the ETag of an object an after
      // handler then refused): that version was never committed, and an error says none.
      reply.removeHeader('etag');
      reply.removeHeader('location');
      for (const [name, value] of Object.entries(headers ?? {})) reply.header(name, value);
      // An unexpected failure says nothing about itself; a deliberate HttpError (503 from /health) may.
      const body =
        status >= 500 && !deliberate
          ? statusBody(status, 'Internal Server Error', requestUrl(request), { request_id: String(request.id) })
          : statusBody(status, message, requestUrl(request), {
              ...(problems?.length ? { errors: problems } : {}),
              ...(status >= 500 ? { request_id: String(request.id) } : {}),
            });
      return reply.code(status).type('application/json').send(body);
    });
    app.setNotFoundHandler(async (request) => {
      throw unrouted(request);
    });
  },
  { name: 'errors', fastify: '5.x' },
);

interface Described {
  status: number;
  message: string;
  errors?: readonly FieldError[];
  headers?: Readonly<Record<string, string>>;
}

function isErrorStatus(status: number): boolean {
  return Number.isInteger(status) && status >= 400 && status <= 599;
}

function describe(error: FastifyError | HttpError): Described {
  if (error instanceof HttpError) {
    // An HttpError of no error status is the code's failure: the 500 below.
    if (!isErrorStatus(error.statusCode)) return { status: 500, message: 'Internal Server Error' };
    return {
      status: error.statusCode,
      message: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
      ...(error.headers ? { headers: error.headers } : {}),
    };
  }
  if (error instanceof RecordNotFound) return { status: 404, message: error.message };
  if (error instanceof UnknownReference) {
    return {
      status: 400,
      message: `${error.field}: ${error.message}`,
      errors: [{ field: error.field, message: error.message }],
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
      if (named.length > 1) {
        // A `_unique_together` set: each value alone may be taken, all of them at once are.
        const together = `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
        return {
          status: 409,
          message: `${together} must be unique together, and another object has the same ${together}`,
          errors: named.map((field) => ({
            field,
            message: `is already taken together with ${named.filter((f) => f !== field).join(' and ')}`,
          })),
        };
      }
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
  // Each problem once, and at most MAX_PROBLEMS of them: a body of 90,000 unknown keys once took
  // seconds of the event loop to answer (every problem compared with every other) in 7 MB.
  const seen = new Set<string>();
  const unique: FieldError[] = [];
  const problems = error.validation ?? [];
  let read = 0;
  for (; read < problems.length && unique.length < MAX_PROBLEMS; read++) {
    const e = problems[read]!;
    for (const problem of context === 'body' ? bodyProblem(e) : parameterProblem(e)) {
      const key = `${problem.field}\0${problem.message}`;
      if (!seen.has(key)) unique.push(problem);
      seen.add(key);
    }
  }
  const more = problems.length - read;
  const listed = unique.map((e) => `${e.field} ${e.message}`).join('; ');
  return {
    status: 400,
    message: `invalid ${context}: ${listed}${more ? `; and ${more} more problem${more === 1 ? '' : 's'}` : ''}`,
    errors: unique,
  };
}

/** The problems of a request an answer lists at most. */
const MAX_PROBLEMS = 100;

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
