/** A small HTTP client for the end-to-end tests: JSON in, JSON (or text) out. */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read bodies freely
  readonly body: any;
}

export interface RequestOptions {
  /** Sent as is (with `headers['content-type']`), instead of JSON. */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
}

export type Api = (method: string, path: string, body?: unknown, options?: RequestOptions) => Promise<Reply>;

/** Requests below `origin + basePath`; an absolute URL (an object's `_self`) is used as it is. */
export function apiClient(origin: string, basePath: string): Api {
  return async (method, path, body, options = {}) => {
    const url = /^https?:\/\//.test(path) ? path : `${origin}${basePath}${path}`;
    const headers: Record<string, string> = { ...options.headers };
    let payload: string | undefined = options.raw;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers, ...(payload === undefined ? {} : { body: payload }) });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };
}
