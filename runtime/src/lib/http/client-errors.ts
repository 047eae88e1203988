/**
 * What Node's HTTP parser refuses before there is a request to route: a malformed request line or
 * header, a header block over the limit (431; 414 where the URL is what made it so), headers or a body that never finish arriving (408,
 * `http.request_timeout`). Answered in the service's error shape, as every other refusal is
 * (Fastify's default answers in its own), then the connection is closed: what follows on it
 * cannot be read as HTTP. There is no request, so no URL to name.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { statusBody } from '../errors.js';

const MESSAGES: Readonly<Record<number, string>> = {
  400: 'the request is not valid HTTP/1.1 (its request line, a header, or how its body is framed)',
  408: 'the request did not arrive in time (http.request_timeout)',
  414: 'the URL (its path and query) is longer than the service accepts',
  431: "the request's headers are larger than the service accepts",
};

/**
 * A request line longer than this, or still unfinished where the parser gave up, is what made the
 * header block too large: a 414, the status of a URL too long (a probe's 20 KB query string was told
 * its headers were too large).
 */
const LONG_REQUEST_LINE = 8192;

function overflowStatus(error: Error): 414 | 431 {
  const raw = (error as { rawPacket?: unknown }).rawPacket;
  // The chunk the parser was reading: it tells only where it starts with the request line (a large
  // header that came in several chunks has no line end in the last one, and is no long URL).
  if (!Buffer.isBuffer(raw) || !REQUEST_LINE.test(raw.subarray(0, 32).toString('latin1'))) return 431;
  const lineEnd = raw.indexOf('\r\n');
  return lineEnd === -1 || lineEnd > LONG_REQUEST_LINE ? 414 : 431;
}

const REQUEST_LINE = /^[A-Z]+ \S/;

export function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A connection the client reset has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 408
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? overflowStatus(error)
        : 400;
  this.log.debug({ err: error, status }, 'request refused before routing');
  if (socket.writable) socket.write(rawAnswer(status, MESSAGES[status]!));
  socket.destroy(error);
}

/**
 * A CONNECT request, which asks for a tunnel: Node hands it to no route, and without this closed
 * the connection with no answer at all (a probe's `CONNECT /v1/episodes/1`). The service is no proxy: 405.
 */
export function refuseConnect(socket: Socket): void {
  if (socket.writable)
    socket.end(
      rawAnswer(
        405,
        'CONNECT is not allowed: the service is no proxy',
        'Allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n',
      ),
    );
  else socket.destroy();
}

/** An answer in the service's error shape, written on the socket itself, after which the connection closes. */
function rawAnswer(status: number, message: string, headers = ''): string {
  const body = JSON.stringify(statusBody(status, message, ''));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n${headers}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
