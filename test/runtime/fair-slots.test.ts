/**
 * The hashing queue's fairness (issue 34): one client sending many jobs at once waits its turn,
 * and cannot keep another client out of a full queue.
 */
import { describe, expect, it } from 'vitest';

interface Slots {
  run<T>(client: string, work: () => Promise<T>): Promise<T>;
  readonly queued: number;
}
const { FairSlots } = (await import(new URL('../../runtime/src/lib/auth/fair-slots.ts', import.meta.url).href)) as {
  FairSlots: new (concurrency: number, queueLimit: number) => Slots;
};

/** A job that finishes when `release` is called, recording when it started. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const work = async () => {
    log.push(name);
    await done;
  };
  return { work, release: () => release() };
}

const { hashingClient } = (await import(new URL('../../runtime/src/lib/auth/throttle.ts', import.meta.url).href)) as {
  hashingClient: (guesser: { address: string; device: string | null }) => string;
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('fair slots', () => {
  it('serves waiting clients in turn, not in the order they came', async () => {
    const slots = new FairSlots(1, 10);
    const log: string[] = [];
    const jobs = ['a1', 'a2', 'a3', 'b1', 'b2'].map((name) => ({ name, ...gate(log, name) }));
    const runs = jobs.map((j) => slots.run(j.name[0]!, j.work));
    for (const job of jobs) {
      await settle();
      job.release();
    }
    await Promise.all(runs);
    expect(log).toEqual(['a1', 'a2', 'b1', 'a3', 'b2']);
  });

  it("lets a client with no waiter into a full queue: the busiest client's newest waiter gives its place up", async () => {
    const slots = new FairSlots(1, 4);
    const log: string[] = [];
    const flood = Array.from({ length: 6 }, (_, i) => gate(log, `a${i}`));
    const outcomes = flood.map((job) =>
      slots.run('attacker', job.work).then(
        () => 'done',
        (error: { statusCode: number }) => error.statusCode,
      ),
    );
    await settle();
    // One runs, four wait, the sixth is refused: the queue is full.
    expect(slots.queued).toBe(4);
    const honest = gate(log, 'honest');
    const served = slots.run('honest', honest.work);
    await settle();
    expect(slots.queued).toBe(4);
    // The honest client waits one turn: after the attacker's next job, ahead of its other waiters.
    flood[0]!.release();
    await settle();
    flood[1]!.release();
    await settle();
    expect(log).toEqual(['a0', 'a1', 'honest']);
    honest.release();
    await served;
    for (const job of flood) job.release();
    expect(await Promise.all(outcomes)).toEqual(['done', 'done', 'done', 'done', 503, 503]);
  });

  it('refuses a client that already holds the most places when the queue is full', async () => {
    const slots = new FairSlots(1, 2);
    const log: string[] = [];
    const jobs = Array.from({ length: 3 }, (_, i) => gate(log, `a${i}`));
    const runs = jobs.map((j) => slots.run('a', j.work));
    await settle();
    await expect(slots.run('a', () => Promise.resolve('late'))).rejects.toMatchObject({ statusCode: 503 });
    for (const job of jobs) {
      job.release();
      await settle();
    }
    await Promise.all(runs);
  });

  it('serves a device the account logged in from apart from others behind its address (throttle.ts hashingClient)', async () => {
    const slots = new FairSlots(1, 2);
    const log: string[] = [];
    const shared = '203.0.113.7';
    const flood = Array.from({ length: 3 }, (_, i) => gate(log, `neighbour${i}`));
    const runs = flood.map((job) => slots.run(hashingClient({ address: shared, device: null }), job.work));
    await settle();
    const refused = (client: string) =>
      slots.run(client, () => Promise.resolve('served')).catch((error: { statusCode: number }) => error.statusCode);
    // The queue is full of the address's guesses: another from it, or from a session there, is refused...
    expect(await refused(hashingClient({ address: shared, device: null }))).toBe(503);
    expect(await refused(hashingClient({ address: shared, device: 'session' }))).toBe(503);
    // ...the owner's device takes the newest one's place.
    const owner = gate(log, 'owner');
    const served = slots.run(hashingClient({ address: shared, device: 'cookie:owners-laptop' }), owner.work);
    const outcomes = runs.map((run) =>
      run.then(
        () => 'done',
        (error: { statusCode: number }) => error.statusCode,
      ),
    );
    for (const job of [...flood, owner]) {
      await settle();
      job.release();
    }
    await served;
    expect(log).toContain('owner');
    expect(await Promise.all(outcomes)).toEqual(['done', 'done', 503]);
  });
});
