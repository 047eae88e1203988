/**
 * Delivers the outbox's events: to each webhook subscription by signed POST (./send.ts), and to
 * the in-process subscribers (`onCommitted` in src/custom/events/), at least once and, for the
 * events of one object, in seq order. Every step goes through the database (lib/outbox/ and
 * ./types.ts `DeliveryStore`), so a process killed at any moment loses nothing: a delivery leased
 * by a dead process is taken again when its lease ends, by this instance or another one.
 *
 * One loop per instance: number committed events (PostgreSQL), fan new events out into
 * deliveries, lease the due ones, send them, record what came of it. It runs again at once while
 * a turn fanned out or sent anything, a few milliseconds after the writes this process answers
 * (`committed`), and otherwise every `POLL_MS`; it never runs inside a request.
 */
import { randomUUID } from 'node:crypto';
import type { ServiceDatabase } from '../database.js';
import type { ServiceEvent } from '../outbox/types.js';
import { nextAttemptAt } from './schedule.js';
import { closeAgents, sendWebhook } from './send.js';
import { matchesEvent } from './settings.js';
import type { Delivery, Outcome, Subscription, WebhookSettings } from './types.js';

/** How often the loop looks for work another instance's writes (or a due retry) made. */
const POLL_MS = 250;
/** How long after a commit its events go out: the writes committed meanwhile go in the same turn. */
const BATCH_MS = 5;
/** Deliveries leased per subscription and turn. */
const BATCH = 200;
/** Events fanned out per subscription and turn. */
const FAN_OUT = 2000;
/** Sends in flight at once per subscription (the events of one object never overlap). */
const CONCURRENCY = 64;
/** How often old events and deliveries are pruned, and how many per statement. */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 1000;

/** Something that takes an event: a webhook, or the in-process subscribers of one model. */
export interface Target {
  readonly name: string;
  matches(type: string): boolean;
  deliver(event: ServiceEvent, body: string): Promise<Outcome>;
}

export interface DispatcherLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export function webhookTargets(settings: WebhookSettings): Target[] {
  return settings.subscriptions.map((subscription: Subscription) => ({
    name: subscription.name,
    matches: (type: string) => matchesEvent(subscription.events, type),
    deliver: (event: ServiceEvent, body: string) => sendWebhook(subscription, event.id, body, settings.timeout),
  }));
}

export class Dispatcher {
  readonly #owner = randomUUID();
  #timer: NodeJS.Timeout | undefined;
  /** A turn is set to run within BATCH_MS (or at once): a later commit leaves it where it is. */
  #dueSoon = false;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #lastPrune = 0;

  constructor(
    readonly db: ServiceDatabase,
    readonly settings: WebhookSettings,
    readonly targets: readonly Target[],
    readonly log: DispatcherLog,
    readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.#stopped = false;
    this.schedule(0);
  }

  /**
   * A write has just committed: its events go out within `BATCH_MS`, with those of every write
   * committed meanwhile (one turn for many writes, not one each). With nothing to deliver to,
   * the poll is enough: it numbers the events and prunes.
   */
  committed(): void {
    if (this.targets.length) this.schedule(BATCH_MS);
  }

  /** Runs a turn now (an operator retried deliveries). */
  wake(): void {
    this.schedule(0);
  }

  /** Stops after the turn running now (its sends finish; what they leave is done by the next start). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    closeAgents();
  }

  /** A turn in `delay` ms, unless one is due sooner; while one runs, another right after it. */
  private schedule(delay: number): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#dueSoon && delay > 0) return;
    clearTimeout(this.#timer);
    this.#dueSoon = true;
    this.#timer = setTimeout(() => this.run(), delay).unref();
  }

  private run(): void {
    this.#dueSoon = false;
    this.#running = this.turns().finally(() => {
      this.#running = undefined;
      if (this.#stopped) return;
      const again = this.#again;
      this.#again = false;
      if (again) this.schedule(BATCH_MS);
      else this.#timer = setTimeout(() => this.run(), POLL_MS).unref();
    });
  }

  /** Turns while one leaves more to do at once (a full batch); the next is scheduled after. */
  private async turns(): Promise<void> {
    try {
      while (!this.#stopped && (await this.turn()));
    } catch (error) {
      // The database is down, say: the next poll tries again; nothing is lost meanwhile.
      this.log.warn({ err: error }, 'event delivery paused: the outbox could not be read');
    }
  }

  /** One pass over every target; true when there may be more to do at once. */
  private async turn(): Promise<boolean> {
    const { log, deliveries } = this.db.outbox;
    await log.sequence();
    let busy = false;
    for (const target of this.targets) {
      if (this.#stopped) break;
      const fanned = await deliveries.fanOut(target.name, (type) => target.matches(type), FAN_OUT);
      const claimed = await deliveries.claim(target.name, this.#owner, this.now(), this.leaseMs(), BATCH);
      if (claimed.length) await this.send(target, claimed);
      // Anything sent may have let an object's next event out (its events go one at a time): look
      // again at once. Waiting for the poll, a probe's busy object got 4 deliveries a second.
      busy ||= fanned > 0 || claimed.length > 0;
    }
    if (this.now() - this.#lastPrune > PRUNE_EVERY_MS) await this.prune();
    return busy;
  }

  /** A lease outlives every attempt of it: only a dead process leaves one to expire. */
  private leaseMs(): number {
    return this.settings.timeout * 2 + 30_000;
  }

  private async send(target: Target, claimed: readonly Delivery[]): Promise<void> {
    const events = new Map((await this.db.outbox.log.bySeq(claimed.map((d) => d.seq))).map((e) => [e.seq, e]));
    /** The seqs acknowledged, by the status that acknowledged them. */
    const acknowledged = new Map<number, number[]>();
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const delivery = claimed[next++]!;
        const event = events.get(delivery.seq);
        // Pruned meanwhile (a dead delivery retried after its event's retention): nothing to send.
        const outcome: Outcome = event
          ? await target.deliver(event, JSON.stringify(event)).catch((error: unknown) => failure(error))
          : { ok: false, status: null, error: 'the event is no longer retained (events.retention)' };
        if (outcome.ok) acknowledged.set(outcome.status, [...(acknowledged.get(outcome.status) ?? []), delivery.seq]);
        else await this.failed(target, delivery, outcome, event === undefined);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, claimed.length) }, worker));
    for (const [status, seqs] of acknowledged)
      await this.db.outbox.deliveries.delivered(target.name, seqs, this.now(), status);
  }

  private async failed(target: Target, delivery: Delivery, outcome: Outcome & { ok: false }, gone: boolean) {
    const now = this.now();
    const attempts = delivery.attempts + 1;
    const nextAt = gone ? null : nextAttemptAt(this.settings, attempts, now, outcome.retryAfter);
    if (nextAt === null)
      this.log.error(
        { subscription: target.name, event: delivery.eventId, seq: delivery.seq, attempts, error: outcome.error },
        `webhook ${target.name}: event ${delivery.type} #${delivery.seq} is dead after ${attempts} attempt(s): ${outcome.error}`,
      );
    await this.db.outbox.deliveries.failed(target.name, delivery.seq, {
      attempts,
      nextAt,
      error: outcome.error,
      status: outcome.status,
      now,
    });
  }

  private async prune(): Promise<void> {
    this.#lastPrune = this.now();
    const { log, deliveries } = this.db.outbox;
    const now = this.now();
    // Small batches, each its own statement: never a long lock.
    while (
      !this.#stopped &&
      (await deliveries.prune(
        { delivered: now - this.settings.retention, dead: now - this.settings.deadRetention },
        PRUNE_BATCH,
      )) === PRUNE_BATCH
    );
    const needed = await deliveries.lowestNeeded();
    while (
      !this.#stopped &&
      (await log.prune(new Date(now - this.settings.retention), PRUNE_BATCH, needed)) === PRUNE_BATCH
    );
  }
}

function failure(error: unknown): Outcome {
  return { ok: false, status: null, error: error instanceof Error ? error.message : String(error) };
}
