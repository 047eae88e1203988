/** The change feed's hub (runtime/src/lib/feed/feed.ts): feeds woken together at one cursor share one read of the log. */
import { describe, expect, it } from 'vitest';
import { FeedHub } from '../../runtime/src/lib/feed/feed.js';
import type { EventLog, ServiceEvent } from '../../runtime/src/lib/outbox/types.js';

/** A log that records its reads and answers each when told to. */
function recordingLog() {
  const reads: { seq: number; answer: (events: ServiceEvent[]) => void }[] = [];
  const log = {
    after: (seq: number) => new Promise<ServiceEvent[]>((answer) => reads.push({ seq, answer })),
  } as unknown as EventLog;
  return { log, reads };
}

const event = (seq: number) => ({ seq }) as unknown as ServiceEvent;

describe('FeedHub.after', () => {
  it('reads the log once for the feeds that ask for one cursor at once, and again once that read is done', async () => {
    const { log, reads } = recordingLog();
    const hub = new FeedHub(log);
    const together = [hub.after(41), hub.after(41), hub.after(41)];
    const elsewhere = hub.after(7);
    expect(reads.map((r) => r.seq)).toEqual([41, 7]);
    reads[0]!.answer([event(42)]);
    reads[1]!.answer([event(8)]);
    expect(await Promise.all(together)).toEqual([[event(42)], [event(42)], [event(42)]]);
    expect(await elsewhere).toEqual([event(8)]);
    // Done: a later wake reads again (new events may have come), not the answer of before.
    void hub.after(41);
    expect(reads.map((r) => r.seq)).toEqual([41, 7, 41]);
  });
});

describe('FeedHub.admit', () => {
  const hub = () => new FeedHub({} as EventLog, { perUser: 2, perAddress: 3 });

  it('counts a feed against its user and its address, and a release frees one place, once', () => {
    const feeds = hub();
    const first = feeds.admit('ann', '10.0.0.1');
    feeds.admit('ann', '10.0.0.1');
    expect(() => feeds.admit('ann', '10.0.0.2')).toThrow(/you already have 2 change feeds open/);
    feeds.admit(undefined, '10.0.0.1');
    expect(() => feeds.admit('ben', '10.0.0.1')).toThrow(/your address already has 3/);
    expect(() => feeds.admit(undefined, '10.0.0.1')).toThrow(/your address already has 3/);
    first();
    first();
    feeds.admit('ben', '10.0.0.1');
    // The second call of `first` freed nothing more: the address is full again.
    expect(() => feeds.admit(undefined, '10.0.0.1')).toThrow(/your address already has 3/);
    expect(() => feeds.admit('ann', '10.0.0.9')).not.toThrow();
  });

  it('limits nothing when both limits are 0', () => {
    const feeds = new FeedHub({} as EventLog);
    expect(() => {
      for (let i = 0; i < 1000; i++) feeds.admit('ann', '10.0.0.1');
    }).not.toThrow();
  });
});
