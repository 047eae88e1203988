/**
 * A small HTTP client for the end-to-end tests: JSON in, JSON (or text) out. Every answer is
 * checked against the OpenAPI document the service serves (support/conformance.ts): an answer the
 * document does not describe fails the request.
 */
import { connect } from 'node:net';
import { ResponseContract } from './conformance.js';

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read bodies freely
  readonly body: any;
}

export interface RequestOptions {
  /** Sent as is (with `headers['content-type']`), instead of JSON: text, or bytes. */
  readonly raw?: string | Uint8Array;
  readonly headers?: Record<string, string>;
  /** Why this answer is not checked against the document (an event handler's own error status). */
  readonly undocumented?: string;
}

export type Api = (method: string, path: string, body?: unknown, options?: RequestOptions) => Promise<Reply>;

const contracts = new Map<string, Promise<ResponseContract>>();

/** The document of the service at `origin + basePath`, fetched once. */
export function contractOf(origin: string, basePath: string): Promise<ResponseContract> {
  const key = `${origin}${basePath}`;
  let contract = contracts.get(key);
  if (!contract) {
    contract = ResponseContract.load(origin, basePath);
    contracts.set(key, contract);
  }
  return contract;
}

/** Requests below `origin + basePath`; an absolute URL (an object's `_self`) is used as it is. */
export function apiClient(origin: string, basePath: string): Api {
  return async (method, path, body, options = {}) => {
    const contract = await contractOf(origin, basePath);
    const url = /^https?:\/\//.test(path) ? path : `${origin}${basePath}${path}`;
    const headers: Record<string, string> = { ...options.headers };
    let payload: string | Uint8Array | undefined = options.raw;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers, ...(payload === undefined ? {} : { body: payload }) });
    // An event stream (the change feed) does not end: its answer is its status and headers.
    const streaming = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
    if (streaming) await response.body?.cancel();
    const text = streaming ? '' : await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (options.undocumented === undefined) {
      const problems = contract.problems({
        method,
        url,
        requestHeaders: headers,
        status: response.status,
        headers: response.headers,
        text,
      });
      if (problems.length)
        throw new Error(`the answer is not what the service's OpenAPI document says:\n${problems.join('\n')}`);
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };
}

/** Sends `request` as it is on a new connection and reads until the service closes it. */
export function rawSocket(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(text) : reject(error)));
  });
}
