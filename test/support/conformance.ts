/**
 * Every answer of a generated service, checked against the OpenAPI document the service serves
 * (`{base}/openapi.json`): the path and method must be documented (or the answer is the
 * documented 404/405), the status must be one the operation lists, and a JSON body must match the
 * schema documented for that status. The end-to-end suites' HTTP client (support/http.ts) runs
 * it on every request, so a route, status or field the document does not describe fails the test
 * that met it. An object answered (the answer, or an item of a page's `data`) to a read without
 * `_fields` must also hold every field the document names no audience for
 * (`x-svcgen-visible-to`): the generated client's types say those are always there
 * (src/plan/client/types.ts; the client leaves optional the links that embedded objects may lack).
 */
import { isBase64 } from '../../runtime/src/lib/http/patterns.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { VISIBLE_TO_MARK } from '../../src/plan/openapi/limits.js';

type Json = Record<string, unknown>;

export interface Exchange {
  readonly method: string;
  /** The whole URL requested. */
  readonly url: string;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

interface PathTemplate {
  readonly template: string;
  readonly pattern: RegExp;
  /** Literal segments win over parameters (`/users/self` before `/users/{id}`). */
  readonly literals: number;
  readonly item: Json;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch'] as const;

export class ResponseContract {
  readonly #paths: readonly PathTemplate[];
  readonly #base: string;
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(
    readonly document: Json,
    /** The path of the service's base URL (`/api/v2`). */
    basePath: string,
  ) {
    this.#base = basePath.replace(/\/$/, '');
    this.#paths = Object.entries(document['paths'] as Json)
      .map(([template, item]) => pathTemplate(template, item as Json))
      .sort((a, b) => b.literals - a.literals);
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema(document, 'openapi');
  }

  /** The service's document, as it serves it. */
  static async load(origin: string, basePath: string): Promise<ResponseContract> {
    const response = await fetch(`${origin}${basePath}/openapi.json`);
    if (response.status !== 200)
      throw new Error(
        `${origin}${basePath}/openapi.json answered ${response.status}: every service serves its document`,
      );
    return new ResponseContract((await response.json()) as Json, basePath);
  }

  /** What is wrong with this answer, as sentences; empty when it is what the document says. */
  problems(exchange: Exchange): string[] {
    const url = new URL(exchange.url);
    const method = exchange.method.toLowerCase();
    // CORS preflights are the browser's protocol, not operations of the API.
    if (
      method === 'options' &&
      Object.keys(exchange.requestHeaders).some((h) => h.toLowerCase() === 'access-control-request-method')
    )
      return [];
    if (!url.pathname.startsWith(`${this.#base}/`) && url.pathname !== this.#base)
      return this.#errorAnswer(exchange, [404]);
    const path = url.pathname.slice(this.#base.length) || '/';
    const template = this.#paths.find((p) => p.pattern.test(path));
    if (!template) return this.#errorAnswer(exchange, [404]);
    // HEAD answers as GET does, without a body.
    const documented = method === 'head' ? 'get' : method;
    const operation = template.item[documented] as Json | undefined;
    if (!operation) {
      const problems = this.#errorAnswer(exchange, [405]);
      if (exchange.status === 405 && !exchange.headers.get('allow')) problems.push('a 405 without an Allow header');
      return problems;
    }
    const responses = operation['responses'] as Json;
    const where = `${exchange.method} ${template.template} (${path})`;
    const listed = responses[String(exchange.status)] as Json | undefined;
    if (!listed)
      return [
        `${where}: status ${exchange.status} is not documented (documented: ${Object.keys(responses).join(', ')}); body: ${exchange.text.slice(0, 300)}`,
      ];
    if (method === 'head') return [];
    return this.#bodyProblems(
      where,
      exchange,
      responsePointer(listed, `/paths/${escapePointer(template.template)}/${documented}/responses/${exchange.status}`),
    );
  }

  /** An answer of no documented operation: a 404 (no such path) or 405 (no such method), with the error body. */
  #errorAnswer(exchange: Exchange, statuses: readonly number[]): string[] {
    const where = `${exchange.method} ${exchange.url}`;
    if (!statuses.includes(exchange.status))
      return [
        `${where}: is no documented path or method, so it must be a ${statuses.join('/')}, not ${exchange.status}`,
      ];
    return exchange.method === 'HEAD' ? [] : this.#bodyProblems(where, exchange, '/components/responses/NotFound');
  }

  /** The body against the response object at `pointer` (a JSON pointer into the document). */
  #bodyProblems(where: string, exchange: Exchange, pointer: string): string[] {
    const content = (this.#at(pointer) as Json | undefined)?.['content'] as Json | undefined;
    if (!content)
      return exchange.text === ''
        ? []
        : [
            `${where}: answered ${exchange.status} with a body the document does not describe: ${exchange.text.slice(0, 200)}`,
          ];
    const type = exchange.headers.get('content-type') ?? '';
    const media = type.split(';')[0]!.trim();
    // Only JSON bodies are read against a schema; another media type (the change feed's event
    // stream) must be one the document lists for this answer.
    if (media !== 'application/json')
      return media in content
        ? []
        : [
            `${where}: answered ${exchange.status} as ${type || 'no content type'}, documented as ${Object.keys(content).join(', ')}`,
          ];
    let body: unknown;
    try {
      body = JSON.parse(exchange.text);
    } catch {
      return [`${where}: the ${exchange.status} body is not JSON: ${exchange.text.slice(0, 200)}`];
    }
    const validate = this.#validator(`${pointer}/content/application~1json/schema`);
    if (validate(body)) {
      // `_fields` leaves out what it does not name.
      if (new URL(exchange.url).searchParams.has('_fields')) return [];
      return this.#missingFields(body).map((missing) => `${where}: the ${exchange.status} body ${missing}`);
    }
    const errors = (validate.errors ?? [])
      .slice(0, 8)
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    return [
      `${where}: the ${exchange.status} body does not match the document:\n  ${errors.join('\n  ')}\n  body: ${exchange.text.slice(0, 500)}`,
    ];
  }

  /**
   * Of the object answered, or each of a page's, the fields its model's schema shows every caller
   * (no `x-svcgen-visible-to`) that it does not hold, as sentences.
   */
  #missingFields(body: unknown): string[] {
    const objects: unknown[] = isObject(body) && Array.isArray(body['data']) ? body['data'] : [body];
    const schemas = (this.document['components'] as Json | undefined)?.['schemas'] as Json | undefined;
    return objects.flatMap((object, i) => {
      if (!isObject(object) || typeof object['_type'] !== 'string') return [];
      const schema = schemas?.[object['_type']] as Json | undefined;
      const properties = (schema?.['properties'] ?? {}) as Record<string, Json>;
      const missing = Object.entries(properties)
        .filter(([name, property]) => !(VISIBLE_TO_MARK in property) && !(name in object))
        .map(([name]) => name);
      const which = objects.length === 1 && objects[0] === body ? '' : ` (data[${i}])`;
      return missing.length ? [`lacks ${missing.join(', ')}${which}, which every caller is shown`] : [];
    });
  }

  #validator(pointer: string): ValidateFunction {
    let validate = this.#validators.get(pointer);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `openapi#${pointer.split('/').map(encodeURIComponent).join('/')}` });
      this.#validators.set(pointer, validate);
    }
    return validate;
  }

  #at(pointer: string): unknown {
    return atPointer(this.document, pointer);
  }
}

/** The value at a JSON pointer (`/components/schemas/Post`; a `#` before it is allowed), or undefined. */
export function atPointer(document: Json, pointer: string): unknown {
  return pointer
    .replace(/^#/, '')
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
}

/** Where a response object is: its `$ref` (into `components/responses`) when it is one, else `location`. */
function responsePointer(response: Json, location: string): string {
  return typeof response['$ref'] === 'string' ? response['$ref'].slice(1) : location;
}

function pathTemplate(template: string, item: Json): PathTemplate {
  const segments = template.split('/').filter(Boolean);
  const source = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : escapeRegExp(s))).join('/');
  return {
    template,
    pattern: new RegExp(`^/${source}$`),
    literals: segments.filter((s) => !s.startsWith('{')).length,
    item: onlyOperations(item),
  };
}

function onlyOperations(item: Json): Json {
  return Object.fromEntries(Object.entries(item).filter(([key]) => (METHODS as readonly string[]).includes(key)));
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointer(template: string): string {
  return template.replace(/~/g, '~0').replace(/\//g, '~1');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The formats the document uses, as the contract writes them. */
function addFormats(ajv: Ajv2020): void {
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\/\/\S+$/i);
  ajv.addFormat('email', /^[^@\s]+@[^@\s]+$/);
  // A file's base64 (OpenAPI's `byte`), as the service checks it.
  ajv.addFormat('byte', { type: 'string', validate: isBase64 });
}
