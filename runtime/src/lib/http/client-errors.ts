/**
 * What Node's HTTP parser refuses before there is a request to route: a malformed request line or
 * header, a header block over the limit (431), headers or a body that never finish arriving (408,
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
  431: "the request's headers are larger than the service accepts",
};

export function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A connection the client reset has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  this.log.debug({ err: error, status }, 'request refused before routing');
  if (socket.writable) {
    const body = JSON.stringify(statusBody(status, MESSAGES[status]!, ''));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
