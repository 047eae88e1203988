/**
 * Server-Sent Events over a raw Node response: the transport of the change feed. The feed's route
 * (ACL filtering, replay from the outbox, going live) hijacks Fastify's reply and hands
 * `reply.raw` to an `EventStream`, which frames messages, keeps idle connections alive through
 * proxies with heartbeat comments, and bounds what one client can make the server hold.
 *
 * A slow reader is never buffered for without limit: once the response's unsent bytes would pass
 * `maxBufferedBytes`, the stream ends with a comment naming the last id sent, and the client
 * reconnects with `Last-Event-ID` to resume from the outbox, which already stores every event.
 * Holding the events again in memory for it would only move the problem.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';

export interface EventStreamOptions {
  /** A `: heartbeat` comment this often while open; 0 or less sends none. Default 15 s. */
  readonly heartbeatMs?: number;
  /** Unsent bytes a client may leave on the server before it is cut off. Default 1 MiB. */
  readonly maxBufferedBytes?: number;
  /** The `retry:` the client waits before reconnecting. Default 3 s. */
  readonly retryMs?: number;
  /**
   * Once ended, how long the client has to take what is still buffered before its connection is
   * destroyed: a reader that never reads again must not keep its buffer forever. Default 30 s.
   */
  readonly drainTimeoutMs?: number;
}

/** One SSE message. `data` may span lines; `id` and `event` may not (newlines are dropped). */
export interface SseMessage {
  readonly id?: string | number;
  readonly event?: string;
  readonly data: string;
}

const DEFAULT_HEARTBEAT_MS = 15_000;
const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
const DEFAULT_RETRY_MS = 3000;
const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

/** The SSE line terminators (CRLF, LF, CR): any of them starts a new line for the client. */
const LINE_BREAK = /\r\n|\r|\n/;

const STREAM_HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  // Every client sees its own stream: no cache may keep or share it.
  'cache-control': 'no-store',
  // nginx would otherwise buffer the response and hold events back.
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
};

export class EventStream {
  readonly #res: ServerResponse;
  readonly #heartbeatMs: number;
  readonly #maxBufferedBytes: number;
  readonly #retryMs: number;
  readonly #drainTimeoutMs: number;
  readonly #closeHooks: (() => void)[] = [];
  readonly #drainWaiters = new Set<() => void>();
  #opened = false;
  #closed = false;
  #lastId: string | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #drainTimer: NodeJS.Timeout | undefined;

  constructor(res: ServerResponse, options: EventStreamOptions = {}) {
    this.#res = res;
    this.#heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.#retryMs = Math.max(0, Math.floor(options.retryMs ?? DEFAULT_RETRY_MS));
    this.#drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    res.on('close', () => this.#onResponseClose());
    // A write racing the socket's end fails here rather than as an uncaught error; `close` follows.
    res.on('error', () => this.#markClosed());
    if (res.destroyed) this.#markClosed();
  }

  /** True once the client is gone or the stream has ended: nothing more will be sent. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The id of the last message sent, if any had one. */
  get lastId(): string | undefined {
    return this.#lastId;
  }

  /** Sends the status, the headers (the caller's override ours) and the `retry:` line, at once. */
  open(headers: OutgoingHttpHeaders = {}): void {
    if (this.#opened) throw new Error('EventStream: already open');
    this.#opened = true;
    if (this.#closed) return;
    this.#res.writeHead(200, { ...STREAM_HEADERS, ...lowerCased(headers) });
    // Written with the headers, so the client sees the stream open before the first event.
    this.#write(`retry: ${this.#retryMs}\n\n`);
    this.#startHeartbeat();
  }

  /** Writes one message; false once the stream is closed (the caller stops and unsubscribes). */
  send(message: SseMessage): boolean {
    const id = message.id === undefined ? undefined : sanitizeId(String(message.id));
    const sent = this.#write(frame(message, id));
    if (sent && id !== undefined) this.#lastId = id;
    return sent;
  }

  /** Writes a comment: clients ignore it, proxies see traffic. False once closed. */
  comment(text: string): boolean {
    return this.#write(commentLines(text));
  }

  /** Calls `hook` once, when the client disconnects or the stream ends (at once if it has). */
  onClose(hook: () => void): void {
    if (this.#closed) hook();
    else this.#closeHooks.push(hook);
  }

  /**
   * Resolves once the response takes writes without buffering (or the stream is closed). For
   * replay, which pulls events at its own pace: waiting here between pages keeps a long replay
   * within `maxBufferedBytes` instead of cutting off a client that reads at a normal speed.
   */
  drained(): Promise<void> {
    if (this.#closed || !this.#res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#res.off('drain', done);
        this.#drainWaiters.delete(done);
        resolve();
      };
      this.#res.on('drain', done);
      this.#drainWaiters.add(done);
    });
  }

  /** Ends the stream, after a last comment if given. */
  close(comment?: string): void {
    if (this.#closed) return;
    if (comment !== undefined && this.#opened) this.#res.write(commentLines(comment));
    this.#end();
  }

  /**
   * Writes `chunk` unless it would leave more than `maxBufferedBytes` unsent; then the reader is too
   * slow and the stream ends instead. A chunk is always let through onto an empty buffer, so one
   * message larger than the limit still gets out (the buffer stays within the limit plus it).
   */
  #write(chunk: string): boolean {
    if (!this.#opened) throw new Error('EventStream: open() first');
    if (this.#closed || this.#res.destroyed || this.#res.writableEnded) {
      this.#markClosed();
      return false;
    }
    const buffered = this.#res.writableLength;
    if (buffered > 0 && buffered + Buffer.byteLength(chunk) > this.#maxBufferedBytes) {
      this.#tooSlow();
      return false;
    }
    this.#res.write(chunk);
    return true;
  }

  /** Best effort: the comment only reaches a reader that reads again before the drain timeout. */
  #tooSlow(): void {
    const resume = this.#lastId === undefined ? '' : ` with Last-Event-ID ${this.#lastId}`;
    this.close(`too slow: reconnect${resume}`);
  }

  #end(): void {
    this.#res.end();
    // `close` clears this once the client has taken the rest; if it never does, the socket goes.
    if (!this.#res.destroyed) {
      this.#drainTimer = setTimeout(() => this.#res.destroy(), this.#drainTimeoutMs);
      this.#drainTimer.unref();
    }
    this.#markClosed();
  }

  #startHeartbeat(): void {
    if (!(this.#heartbeatMs > 0) || this.#closed) return;
    this.#heartbeat = setInterval(() => this.comment('heartbeat'), this.#heartbeatMs);
    // An open stream must not keep the process alive on its own (graceful shutdown ends it).
    this.#heartbeat.unref();
  }

  #onResponseClose(): void {
    clearTimeout(this.#drainTimer);
    this.#markClosed();
  }

  /** The one way to `closed`: stops the heartbeat and calls the hooks, once. */
  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    for (const done of this.#drainWaiters) done();
    for (const hook of this.#closeHooks.splice(0)) hook();
  }
}

/** The message as SSE lines: one `data:` line per line of `data`, then the blank line. */
function frame(message: SseMessage, id: string | undefined): string {
  let out = '';
  if (id !== undefined) out += `id: ${id}\n`;
  if (message.event !== undefined) out += `event: ${singleLine(message.event)}\n`;
  for (const line of message.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

function commentLines(text: string): string {
  return `${text
    .split(LINE_BREAK)
    .map((line) => `: ${line}\n`)
    .join('')}\n`;
}

/** A newline would end the field and let the rest be read as fields of its own: dropped. */
function singleLine(value: string): string {
  return value.replace(/[\r\n]/g, '');
}

/** Clients ignore an `id:` containing NUL (and keep the previous id): dropped too. */
function sanitizeId(id: string): string {
  return singleLine(id).replaceAll('\0', '');
}

function lowerCased(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  // writeHead would send both `Content-Type` and `content-type`; one name each, the caller's wins.
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** A seq as clients send it back: digits only, no sign, space or exponent. */
const SEQ = /^\d{1,16}$/;

/**
 * Where a client resumes: the `Last-Event-ID` header (what EventSource sends when it reconnects,
 * so it wins) or `?last_event_id=` (how a first connection names it, EventSource sending no
 * headers of its own). Undefined when neither is given; 'invalid' (a 400) when not a seq.
 */
export function lastEventId(
  headers: IncomingHttpHeaders,
  query: Record<string, unknown>,
): number | undefined | 'invalid' {
  const given = headers['last-event-id'] ?? query['last_event_id'];
  if (given === undefined) return undefined;
  return parseSeq(given);
}

function parseSeq(value: unknown): number | 'invalid' {
  // A query string parser may already have made it a number; an array is a repeated parameter.
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : 'invalid';
  if (typeof value !== 'string' || !SEQ.test(value)) return 'invalid';
  const seq = Number(value);
  return Number.isSafeInteger(seq) ? seq : 'invalid';
}
