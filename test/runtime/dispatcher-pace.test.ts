/**
 * The delivery loop (runtime/src/lib/webhooks/dispatcher.ts) sends an object's events one at a
 * time, in seq order: each turn leases only the first pending one of each object. A turn that sent
 * anything looks again at once; it waited for the next poll (250 ms), and a probe's busy object got
 * four deliveries a second, its backlog growing for minutes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Dispatcher, type Target } from '../../runtime/src/lib/webhooks/dispatcher.js';
import type { ServiceDatabase } from '../../runtime/src/lib/database.js';
import type { Delivery } from '../../runtime/src/lib/webhooks/types.js';
import type { ServiceEvent } from '../../runtime/src/lib/outbox/types.js';

afterEach(() => void vi.useRealTimers());

/** An outbox of `count` events of one object, all due: a store that leases the first pending one alone. */
function outboxOfOneObject(count: number) {
  const pending = new Set(Array.from({ length: count }, (_, i) => i + 1));
  const delivery = (seq: number): Delivery => ({
    subscription: 'hook',
    seq,
    eventId: `e${seq}`,
    type: 'Item.update',
    object: 'Item:1',
    status: 'pending',
    attempts: 0,
    nextAt: 0,
    lastError: null,
    lastStatus: null,
    doneAt: null,
  });
  const event = (seq: number) => ({ seq, id: `e${seq}`, type: 'Item.update' }) as unknown as ServiceEvent;
  const db = {
    outbox: {
      log: {
        sequence: () => Promise.resolve(),
        bySeq: (seqs: readonly number[]) => Promise.resolve(seqs.map(event)),
        prune: () => Promise.resolve(0),
      },
      deliveries: {
        fanOut: () => Promise.resolve(0),
        claim: () => Promise.resolve(pending.size ? [delivery(Math.min(...pending))] : []),
        delivered: (_: string, seqs: readonly number[]) => {
          for (const seq of seqs) pending.delete(seq);
          return Promise.resolve();
        },
        prune: () => Promise.resolve(0),
        lowestNeeded: () => Promise.resolve(undefined),
      },
    },
  } as unknown as ServiceDatabase;
  return { db, pending };
}

describe('the delivery loop', () => {
  it("sends an object's events one after the other without waiting for the poll between them", async () => {
    vi.useFakeTimers();
    const { db, pending } = outboxOfOneObject(40);
    const sent: string[] = [];
    const target: Target = {
      name: 'hook',
      matches: () => true,
      deliver: (event) => Promise.resolve(void sent.push(event.id)).then(() => ({ ok: true as const, status: 200 })),
    };
    const log = { warn: () => undefined, error: () => undefined };
    const dispatcher = new Dispatcher(db, { timeout: 1000 } as never, [target], log, () => 0);
    dispatcher.start();
    // Less than one poll: every event is out, in order.
    await vi.advanceTimersByTimeAsync(50);
    expect(pending.size).toBe(0);
    expect(sent).toEqual(Array.from({ length: 40 }, (_, i) => `e${i + 1}`));
    await dispatcher.stop();
  });
});
