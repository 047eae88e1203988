/**
 * Slots for slow work (password hashing), shared fairly between clients: at most `concurrency`
 * jobs run at once and at most `queueLimit` wait. A freed slot goes to the waiting clients in turn
 * (round robin), and when the queue is full a client with fewer waiters than the busiest one takes
 * the busiest one's newest place (that waiter is answered 503): one client sending many requests
 * waits its turn and cannot keep the others out.
 */
import { HttpError } from '../errors.js';

/** The answer when the queue has no room for a client: try again in a moment. */
function busy(): HttpError {
  return new HttpError(503, 'too many logins at once; try again in a moment', undefined, { 'retry-after': '1' });
}

interface Waiter {
  readonly start: () => void;
  readonly refuse: (error: HttpError) => void;
}

export class FairSlots {
  #running = 0;
  #queued = 0;
  /** Waiters by client, in the order the clients are next served. */
  readonly #waiting = new Map<string, Waiter[]>();

  constructor(
    readonly concurrency: number,
    readonly queueLimit: number,
  ) {}

  /** How many wait now (for tests and logs). */
  get queued(): number {
    return this.#queued;
  }

  async run<T>(client: string, work: () => Promise<T>): Promise<T> {
    if (this.#running < this.concurrency) this.#running++;
    else await this.#wait(client); // a finishing job hands its slot over
    try {
      return await work();
    } finally {
      this.#handOver();
    }
  }

  #wait(client: string): Promise<void> {
    if (this.#queued >= this.queueLimit && !this.#makeRoomFor(client)) return Promise.reject(busy());
    return new Promise<void>((start, refuse) => {
      const queue = this.#waiting.get(client) ?? [];
      queue.push({ start, refuse });
      this.#waiting.set(client, queue);
      this.#queued++;
    });
  }

  /** The queue is full: the busiest client's newest waiter gives its place up, if that is fairer. */
  #makeRoomFor(client: string): boolean {
    const mine = this.#waiting.get(client)?.length ?? 0;
    let busiest: string | undefined;
    for (const [other, queue] of this.#waiting)
      if (busiest === undefined || queue.length > this.#waiting.get(busiest)!.length) busiest = other;
    const theirs = busiest === undefined ? 0 : this.#waiting.get(busiest)!.length;
    if (busiest === undefined || busiest === client || theirs <= mine + 1) return false;
    const queue = this.#waiting.get(busiest)!;
    queue.pop()!.refuse(busy());
    this.#queued--;
    if (queue.length === 0) this.#waiting.delete(busiest);
    return true;
  }

  /** A slot is free: the next client in turn gets it, and goes to the back of the turn. */
  #handOver(): void {
    const next = this.#waiting.entries().next();
    if (next.done) {
      this.#running--;
      return;
    }
    const [client, queue] = next.value;
    const waiter = queue.shift()!;
    this.#waiting.delete(client);
    if (queue.length) this.#waiting.set(client, queue);
    this.#queued--;
    waiter.start();
  }
}
