/**
 * How the generated client talks to the service: one `fetch` per call (the platform's, or one the
 * caller injects), JSON in and out, the service's one error shape as `ApiError`, and the caller's
 * credentials: the ticket cookie (kept here where the platform's fetch keeps none, as Node's does
 * not) or an API token (the `Authorization` header). It depends on nothing but `fetch`.
 */

/** The platform's `fetch`, or any function of its shape (a test can bind one to Fastify's `inject`). */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** The service's URL with its base path: `http://localhost:3000/api`. */
  readonly baseUrl: string;
  /** What sends the requests; the platform's `fetch` by default. */
  readonly fetch?: Fetch;
  /** Headers sent with every request (a tracing id, a proxy's key). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A browser's `credentials` mode: `include` sends the ticket cookie to a service on another origin. */
  readonly credentials?: RequestInit['credentials'];
}

/** One problem with one field of a request, as a 400 lists them. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** The body of every error the service answers with, and of its status answers (a delete, a logout). */
export interface StatusBody {
  readonly status_code: number;
  readonly title: string;
  readonly explanation: string;
  readonly message: string | null;
  readonly timestamp: string;
  readonly request_url: string;
  readonly errors?: readonly FieldError[];
  /** Of a 5xx: the id the service's log has the details under. */
  readonly request_id?: string;
  /** Of a change to many objects: how many changed. */
  readonly count?: number;
}

/** Any answer that is not a 2xx: its status and the service's error body (undefined if the body was not JSON). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: StatusBody | undefined,
    readonly headers: Headers,
  ) {
    super(body?.message ?? body?.title ?? `HTTP ${status}`);
    this.name = 'ApiError';
  }
}

export interface Call {
  /** The query string's parameters, each value once per parameter. */
  readonly query?: URLSearchParams;
  readonly body?: unknown;
  /** `If-Match`: the ETag the change is conditional on. */
  readonly ifMatch?: string;
}

export interface Answer<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** The transport every accessor of a client shares, with the caller's credentials. */
export class Http {
  readonly #options: ClientOptions;
  readonly #cookies = new Map<string, string>();
  #authorization: string | undefined;

  constructor(options: ClientOptions) {
    this.#options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
  }

  /** `method` on `path` (below the base URL); any answer but a 2xx throws `ApiError`. */
  async send<T>(method: string, path: string, call: Call = {}): Promise<Answer<T>> {
    const query = call.query?.toString() ?? '';
    const url = `${this.#options.baseUrl}${path}${query === '' ? '' : `?${query}`}`;
    const send = this.#options.fetch ?? fetch;
    const init: RequestInit = { method, headers: this.#headers(call) };
    if (call.body !== undefined) init.body = JSON.stringify(call.body);
    if (this.#options.credentials !== undefined) init.credentials = this.#options.credentials;
    const response = await send(url, init);
    this.#keepCookies(response.headers);
    const body = parseJson(await response.text());
    if (!response.ok) throw new ApiError(response.status, isStatusBody(body) ? body : undefined, response.headers);
    return { status: response.status, headers: response.headers, body: body as T };
  }

  /** Sends `Authorization: ApiKey <username>:<token>` from now on. */
  useToken(username: string, token: string): void {
    this.#authorization = `ApiKey ${username}:${token}`;
  }

  /** Forgets the caller's credentials (after a logout). */
  forgetCredentials(): void {
    this.#authorization = undefined;
    this.#cookies.clear();
  }

  #headers(call: Call): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.#options.headers };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.ifMatch !== undefined) headers['if-match'] = call.ifMatch;
    if (this.#authorization !== undefined) headers['authorization'] = this.#authorization;
    if (this.#cookies.size)
      headers['cookie'] = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return headers;
  }

  /**
   * Keeps the cookies the service sets, as a browser would (a browser's fetch shows none of them:
   * there it keeps them itself). A cookie set empty or already expired is dropped.
   */
  #keepCookies(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || attributes.some(expires)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
}

/** Whether a Set-Cookie attribute ends the cookie now: `Max-Age=0` or an `Expires` in the past. */
function expires(attribute: string): boolean {
  const [name = '', value = ''] = attribute.split('=').map((part) => part.trim());
  if (/^max-age$/i.test(name)) return Number(value) <= 0;
  if (/^expires$/i.test(name)) return Date.parse(value) <= Date.now();
  return false;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isStatusBody(body: unknown): body is StatusBody {
  return (
    typeof body === 'object' && body !== null && typeof (body as { status_code?: unknown }).status_code === 'number'
  );
}
