/**
 * The change feed's transport (runtime/src/lib/feed/sse.ts) against a real `node:http` server and
 * a client reading the raw stream: headers, message framing as a client parses it back,
 * heartbeats, a slow reader cut off instead of buffered for, disconnects, and `Last-Event-ID`.
 */
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventStream, lastEventId, type EventStreamOptions } from '../../runtime/src/lib/feed/sse.js';

interface Served {
  readonly stream: EventStream;
  readonly res: ServerResponse;
}

interface Connection {
  readonly served: Served;
  readonly res: IncomingMessage;
  readonly port: number;
}

const servers: Server[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }
});

/**
 * A server whose every request opens an EventStream with `options`, and one client request to
 * it: resolves once the client has the response's headers.
 */
async function connect(options: EventStreamOptions = {}, openHeaders = {}): Promise<Connection> {
  const served: Served[] = [];
  const server = createServer((_req, res) => {
    const stream = new EventStream(res, options);
    stream.open(openHeaders);
    served.push({ stream, res });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const req = request({ host: '127.0.0.1', port, path: '/feed', agent: false });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  const first = served[0];
  if (!first) throw new Error('the server saw no request');
  return { served: first, res, port };
}

/** Reads the response as text until `done(text)` holds or it ends; fails after `ms`. */
function readUntil(res: IncomingMessage, done: (text: string) => boolean, ms = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (error?: Error) => {
      clearTimeout(timer);
      res.off('data', onData);
      res.off('end', onEnd);
      if (error) reject(error);
      else resolve(text);
    };
    const timer = setTimeout(() => finish(new Error(`timed out; read so far: ${text.slice(-300)}`)), ms);
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (done(text)) finish();
    };
    const onEnd = () => finish();
    res.on('data', onData);
    res.on('end', onEnd);
    res.resume();
  });
}

const readToEnd = (res: IncomingMessage, ms?: number) => readUntil(res, () => false, ms);

interface Parsed {
  readonly messages: { id: string; event: string; data: string }[];
  readonly comments: string[];
  readonly retry: number | undefined;
}

/** The event stream interpretation of the HTML standard, enough to check framing. */
function parseSse(text: string): Parsed {
  const messages: Parsed['messages'] = [];
  const comments: string[] = [];
  let retry: number | undefined;
  let lastId = '';
  let event = '';
  let data = '';
  // The text after the last line break is an incomplete line: not parsed.
  const lines = text.split(/\r\n|\r|\n/).slice(0, -1);
  for (const line of lines) {
    if (line === '') {
      if (data !== '') messages.push({ id: lastId, event: event || 'message', data: data.slice(0, -1) });
      data = '';
      event = '';
      continue;
    }
    if (line.startsWith(':')) {
      comments.push(line.slice(1).replace(/^ /, ''));
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data += `${value}\n`;
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  }
  return { messages, comments, retry };
}

/** Stops reading: the client's socket fills, then the kernel's buffers, then the server's. */
function stopReading(res: IncomingMessage): void {
  res.pause();
  res.socket.pause();
}

function resumeReading(res: IncomingMessage): void {
  res.socket.resume();
}

describe('EventStream', () => {
  it('opens with the stream headers and a retry line, before any event', async () => {
    const { res } = await connect({ retryMs: 1234 }, { 'X-Request-Id': 'r1', 'Cache-Control': 'no-cache' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.headers.connection).toBe('keep-alive');
    expect(res.headers['x-request-id']).toBe('r1');
    // The caller's header replaces ours, under one name.
    expect(res.headers['cache-control']).toBe('no-cache');
    const text = await readUntil(res, (t) => t.endsWith('\n\n'));
    expect(text).toBe('retry: 1234\n\n');
    expect(parseSse(text).retry).toBe(1234);
  });

  it('sends cache-control: no-store unless told otherwise', async () => {
    const { res } = await connect();
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('frames messages as a client parses them back', async () => {
    const { served, res } = await connect({ retryMs: 10 });
    const event = { id: 'e1', seq: 7, type: 'Story.create', time: '2024-01-01T00:00:00.000Z', data: { pk: '1' } };
    const stream = served.stream;
    expect(stream.send({ id: 7, event: 'Story.create', data: JSON.stringify(event) })).toBe(true);
    expect(stream.send({ data: 'one\ntwo\r\nthree\rfour' })).toBe(true);
    expect(stream.send({ id: '8\ndata: injected', event: 'a\r\nb', data: '' })).toBe(true);
    expect(stream.comment('two\nlines')).toBe(true);
    expect(stream.send({ id: 'x\0y', data: 'nul dropped' })).toBe(true);
    stream.close('bye');
    expect(stream.closed).toBe(true);
    expect(stream.send({ data: 'after close' })).toBe(false);
    expect(stream.comment('after close')).toBe(false);

    const parsed = parseSse(await readToEnd(res));
    expect(parsed.messages).toEqual([
      { id: '7', event: 'Story.create', data: JSON.stringify(event) },
      // The id carries on to messages without one, as a client keeps it.
      { id: '7', event: 'message', data: 'one\ntwo\nthree\nfour' },
      { id: '8data: injected', event: 'ab', data: '' },
      { id: 'xy', event: 'message', data: 'nul dropped' },
    ]);
    expect(parsed.comments).toEqual(['two', 'lines', 'bye']);
    expect(stream.lastId).toBe('xy');
  });

  it('lets one message larger than the buffer limit through onto an empty buffer', async () => {
    const { served, res } = await connect({ maxBufferedBytes: 1000 });
    await served.stream.drained();
    await tick();
    const big = 'b'.repeat(5000);
    expect(served.stream.send({ id: 1, data: big })).toBe(true);
    served.stream.close();
    expect(parseSse(await readToEnd(res)).messages).toEqual([{ id: '1', event: 'message', data: big }]);
  });

  it('sends heartbeat comments while open', async () => {
    const { res } = await connect({ heartbeatMs: 50 });
    const started = Date.now();
    const text = await readUntil(res, (t) => parseSse(t).comments.filter((c) => c === 'heartbeat').length >= 3, 3000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(parseSse(text).messages).toEqual([]);
  });

  it('cuts off a reader that stops reading, within the buffer limit, and tells it where to resume', async () => {
    const maxBufferedBytes = 1024 * 1024;
    const { served, res } = await connect({ heartbeatMs: 60_000, maxBufferedBytes });
    const { stream } = served;
    let closes = 0;
    stream.onClose(() => closes++);
    stopReading(res);

    // 10 MB in 1 KB events, yielding now and then so the socket writes what it can.
    const payload = 'x'.repeat(1000);
    const total = 10 * 1024;
    let accepted = 0;
    let refusedThenAccepted = false;
    let maxBuffered = 0;
    for (let i = 1; i <= total; i++) {
      const sent = stream.send({ id: i, event: 'Story.update', data: payload });
      if (sent && accepted !== i - 1) refusedThenAccepted = true;
      if (sent) accepted = i;
      maxBuffered = Math.max(maxBuffered, served.res.writableLength);
      if (i % 32 === 0) await tick();
    }
    const oneMessage = Buffer.byteLength(`id: ${total}\nevent: Story.update\ndata: ${payload}\n\n`) + 16;
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(total);
    expect(refusedThenAccepted).toBe(false);
    expect(maxBuffered).toBeLessThanOrEqual(maxBufferedBytes + oneMessage);
    expect(stream.closed).toBe(true);
    expect(stream.lastId).toBe(String(accepted));
    expect(closes).toBe(1);

    resumeReading(res);
    // Loopback TCP can take a while to reopen a window that was shut: a generous timeout.
    const parsed = parseSse(await readToEnd(res, 30_000));
    expect(parsed.messages).toHaveLength(accepted);
    expect(parsed.messages.map((m) => Number(m.id))).toEqual(Array.from({ length: accepted }, (_, i) => i + 1));
    expect(parsed.messages.every((m) => m.data === payload && m.event === 'Story.update')).toBe(true);
    expect(parsed.comments.at(-1)).toBe(`too slow: reconnect with Last-Event-ID ${accepted}`);
    expect(closes).toBe(1);
  });

  it('destroys the connection of a cut-off reader that never reads again', async () => {
    const { served, res } = await connect({ heartbeatMs: 60_000, maxBufferedBytes: 64 * 1024, drainTimeoutMs: 100 });
    stopReading(res);
    const closed = once(served.res, 'close');
    const payload = 'y'.repeat(1000);
    for (let i = 1; i <= 10 * 1024 && served.stream.send({ id: i, data: payload }); i++) {
      if (i % 32 === 0) await tick();
    }
    expect(served.stream.closed).toBe(true);
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('never destroyed')), 3000));
    await Promise.race([closed, timeout]);
    expect(served.res.destroyed).toBe(true);
  });

  it('waits for a paused reader to drain when asked instead of cutting it off', async () => {
    const { served, res } = await connect({ heartbeatMs: 60_000 });
    stopReading(res);
    const payload = 'z'.repeat(1000);
    let i = 0;
    // Past what the kernel's buffers take: the rest waits in the response.
    while (served.res.writableLength < 256 * 1024) {
      expect(served.stream.send({ id: ++i, data: payload })).toBe(true);
      if (i % 32 === 0) await tick();
    }
    expect(served.res.writableNeedDrain).toBe(true);
    let drained = false;
    const waiting = served.stream.drained().then(() => (drained = true));
    await tick();
    expect(drained).toBe(false);
    resumeReading(res);
    res.resume();
    await waiting;
    expect(served.res.writableNeedDrain).toBe(false);
    expect(served.stream.closed).toBe(false);
  });

  it('fires onClose once when the client disconnects, and stops the heartbeat', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    const { served, res } = await connect({ heartbeatMs: 50 });
    const { stream } = served;
    expect(vi.getTimerCount()).toBe(1);
    let closes = 0;
    const closed = new Promise<void>((resolve) =>
      stream.onClose(() => {
        closes++;
        resolve();
      }),
    );
    const write = vi.spyOn(served.res, 'write');
    vi.advanceTimersByTime(50);
    expect(write).toHaveBeenCalledTimes(1);

    res.destroy();
    await closed;
    expect(stream.closed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    write.mockClear();
    vi.advanceTimersByTime(500);
    expect(write).not.toHaveBeenCalled();
    stream.close();
    await tick();
    expect(closes).toBe(1);
    expect(stream.send({ data: 'gone' })).toBe(false);

    // A hook added after the close runs at once.
    let late = 0;
    stream.onClose(() => late++);
    expect(late).toBe(1);
  });

  it('fires onClose once when the server ends the stream', async () => {
    const { served, res } = await connect();
    let closes = 0;
    served.stream.onClose(() => closes++);
    served.stream.close();
    expect(closes).toBe(1);
    await readToEnd(res);
    await tick();
    expect(closes).toBe(1);
  });
});

describe('lastEventId', () => {
  it.each([
    [{}, {}, undefined],
    [{ 'last-event-id': '0' }, {}, 0],
    [{ 'last-event-id': '42' }, {}, 42],
    [{}, { last_event_id: '17' }, 17],
    [{}, { last_event_id: 17 }, 17],
    // EventSource sends the header when it reconnects: newer than the URL it was opened with.
    [{ 'last-event-id': '42' }, { last_event_id: '17' }, 42],
    [{ 'last-event-id': '9007199254740991' }, {}, Number.MAX_SAFE_INTEGER],
  ])('reads %j %j as %j', (headers, query, expected) => {
    expect(lastEventId(headers, query)).toBe(expected);
  });

  it.each([
    [{ 'last-event-id': '' }, {}],
    [{ 'last-event-id': '-1' }, {}],
    [{ 'last-event-id': '1.5' }, {}],
    [{ 'last-event-id': '1e3' }, {}],
    [{ 'last-event-id': ' 1' }, {}],
    [{ 'last-event-id': '0x10' }, {}],
    [{ 'last-event-id': 'abc' }, {}],
    [{ 'last-event-id': '9007199254740992' }, {}],
    [{ 'last-event-id': '12345678901234567890' }, {}],
    [{ 'last-event-id': '1, 2' }, {}],
    [{ 'last-event-id': 'abc' }, { last_event_id: '3' }],
    [{}, { last_event_id: '' }],
    [{}, { last_event_id: ['1', '2'] }],
    [{}, { last_event_id: -1 }],
    [{}, { last_event_id: 1.5 }],
    [{}, { last_event_id: { a: 1 } }],
  ])('refuses %j %j', (headers, query) => {
    expect(lastEventId(headers, query)).toBe('invalid');
  });
});
