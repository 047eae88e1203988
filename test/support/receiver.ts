/**
 * A webhook receiver for the tests: a plain `node:http` server on 127.0.0.1 that checks every
 * delivery's Standard Webhooks signature (with the runtime's own `verify`), records what it got,
 * and answers as the test tells it (fail an event so many times, ask to wait, be down).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const { verify } = (await import(new URL('../../runtime/src/lib/webhooks/signature.ts', import.meta.url).href)) as {
  verify: (secret: string, headers: Record<string, string | undefined>, body: string, now?: number) => boolean;
};

export interface Received {
  readonly id: string;
  readonly seq: number;
  readonly type: string;
  readonly pk: string;
  readonly object: Record<string, unknown>;
  /** The event's whole `data` (`previous` and `changed` where it has them). */
  readonly data: Record<string, unknown>;
  readonly at: number;
  readonly status: number;
  readonly signed: boolean;
  /** Other deliveries of the same event being answered at this moment (two instances sending one event). */
  readonly overlapping: number;
}

/** One stored object (`Note:7`): the key of `Receiver.script`, and what delivery keeps in order. */
export function objectKey(type: string, pk: string): string {
  return `${type.slice(0, type.lastIndexOf('.'))}:${pk}`;
}

/** How to answer one delivery: a status (and headers), or a delay first. */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number };

export class Receiver {
  readonly received: Received[] = [];
  /** Answers by event id or by object (`Note:7`): the next answer is shifted off its list; then `fallback`. */
  readonly script = new Map<string, Answer[]>();
  fallback: (body: { type: string; data: { pk: string } }) => Answer = () => ({ status: 200 });
  #server: Server | undefined;
  readonly #inFlight = new Map<string, number>();

  constructor(readonly secret: string) {}

  get url(): string {
    return `http://127.0.0.1:${(this.#server!.address() as AddressInfo).port}/hook`;
  }

  async start(port = 0): Promise<void> {
    this.#server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on(
        'end',
        () =>
          void this.answer(request.headers, body).then((a) => {
            response.writeHead(a.status, a.headers ?? {}).end();
          }),
      );
    });
    await new Promise<void>((resolve) => this.#server!.listen(port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** Delivered (2xx) events, once each, by id. */
  delivered(): Map<string, Received> {
    return new Map(this.received.filter((r) => r.status < 300).map((r) => [r.id, r]));
  }

  async waitFor(check: () => boolean, timeoutMs = 20_000, what = 'the deliveries'): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}; received ${this.received.length}`);
      await sleep(25);
    }
  }

  private async answer(headers: IncomingHttpHeaders, body: string): Promise<Answer> {
    const event = JSON.parse(body) as {
      id: string;
      seq: number;
      type: string;
      data: { pk: string; object: Record<string, unknown> };
    };
    const overlapping = this.#inFlight.get(event.id) ?? 0;
    this.#inFlight.set(event.id, overlapping + 1);
    try {
      const object = objectKey(event.type, event.data.pk);
      const answer = this.script.get(event.id)?.shift() ?? this.script.get(object)?.shift() ?? this.fallback(event);
      if (answer.delayMs) await sleep(answer.delayMs);
      this.received.push({
        id: event.id,
        seq: event.seq,
        type: event.type,
        pk: event.data.pk,
        object: event.data.object,
        data: event.data,
        at: Date.now(),
        status: answer.status,
        signed: verify(this.secret, headers as Record<string, string>, body),
        overlapping,
      });
      return answer;
    } finally {
      this.#inFlight.set(event.id, (this.#inFlight.get(event.id) ?? 1) - 1);
    }
  }
}

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
}
