/**
 * Webhook subscriptions (service.ini `webhooks.<name>.*`) and their deliveries: every event a
 * subscription matches becomes one delivery, sent until a 2xx acknowledges it or its attempts run
 * out (then it is dead: kept, listed, retried by hand). The events of one object are sent in seq
 * order: a delivery waits while an earlier one of the same object is pending.
 */

export interface Subscription {
  /** Its name in service.ini (`webhooks.<name>.url`): letters, digits, `_` and `-`. */
  readonly name: string;
  readonly url: string;
  /** Event types it wants: `*`, `Story.*`, `Story.create`. */
  readonly events: readonly string[];
  /** The signing key: the base64 after `whsec_`, else the secret's UTF-8 bytes. */
  readonly key: Buffer;
}

export interface WebhookSettings {
  readonly subscriptions: readonly Subscription[];
  /** `webhooks.timeout`, ms: a delivery that takes longer failed. */
  readonly timeout: number;
  /** `webhooks.max_attempts`: after this many failures a delivery is dead. */
  readonly maxAttempts: number;
  /** `webhooks.retry_delays`, ms: the wait after the 1st, 2nd… failure (the last one repeats). */
  readonly retryDelays: readonly number[];
  /** `webhooks.dispatch`: false, this instance only writes events; others deliver them. */
  readonly dispatch: boolean;
  /** `events.retention`, ms: delivered events older than this are pruned. */
  readonly retention: number;
  /** `events.dead_retention`, ms: dead deliveries older than this are pruned. */
  readonly deadRetention: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface Delivery {
  readonly subscription: string;
  readonly seq: number;
  readonly eventId: string;
  readonly type: string;
  /** `<Model>:<pk>`: the events of one object are sent in seq order. */
  readonly object: string;
  readonly status: DeliveryStatus;
  /** The attempts made: the failed ones, and the one that was acknowledged. */
  readonly attempts: number;
  /** Epoch ms of the next attempt (pending). */
  readonly nextAt: number;
  /** The error of the last failed attempt, kept once a later one is acknowledged. */
  readonly lastError: string | null;
  /** The HTTP status of the last attempt (the 2xx of a delivered one), or null when none came. */
  readonly lastStatus: number | null;
  /** Epoch ms when it was acknowledged (delivered), or died. */
  readonly doneAt: number | null;
}

/** What one attempt came to. */
export type Outcome =
  | { readonly ok: true; readonly status: number }
  | {
      readonly ok: false;
      /** The HTTP status, or null (refused connection, timeout). */
      readonly status: number | null;
      readonly error: string;
      /** Milliseconds the receiver asked to wait (Retry-After on 429 and 503). */
      readonly retryAfter?: number;
    };

export interface DeliveryCounts {
  readonly pending: number;
  readonly delivered: number;
  readonly dead: number;
  /** The last error of the latest delivery not delivered (pending again, or dead); null when none failed. */
  readonly lastError: string | null;
}

/** The deliveries of every subscription, on one database. */
export interface DeliveryStore {
  /**
   * Makes the deliveries of the events after the subscription's cursor that it matches, and
   * moves the cursor, in one transaction (one instance at a time per subscription). A new
   * subscription's cursor starts at the latest event: it gets what happens from then on.
   */
  fanOut(subscription: string, matches: (type: string) => boolean, limit: number): Promise<number>;
  /**
   * Leases up to `limit` deliveries due now whose object has no earlier pending delivery, to
   * `owner` until `now + leaseMs`: no other instance takes them meanwhile.
   */
  claim(subscription: string, owner: string, now: number, leaseMs: number, limit: number): Promise<Delivery[]>;
  /** Acknowledged with `status`: delivered, its attempt counted, lease released. */
  delivered(subscription: string, seqs: readonly number[], now: number, status: number): Promise<void>;
  /** Failed: tried again at `nextAt`, or dead when `nextAt` is null. */
  failed(
    subscription: string,
    seq: number,
    failure: { attempts: number; nextAt: number | null; error: string; status: number | null; now: number },
  ): Promise<void>;
  list(
    subscription: string,
    status: DeliveryStatus | undefined,
    page: { after?: number; limit: number },
  ): Promise<Delivery[]>;
  counts(subscription: string): Promise<DeliveryCounts>;
  /**
   * A delivery due again now, its attempts reset: a dead or pending one, or a delivered one sent
   * again (a receiver that lost it); false if there is none (never made, or pruned).
   */
  retry(subscription: string, seq: number, now: number): Promise<boolean>;
  /** Every dead delivery of the subscription due again now; returns how many. */
  retryDead(subscription: string, now: number): Promise<number>;
  /** Deletes up to `limit` delivered deliveries done before `delivered`, dead ones before `dead`. */
  prune(before: { delivered: number; dead: number }, limit: number): Promise<number>;
  /** The lowest seq a pending or dead delivery still needs (events below it may be pruned), or undefined. */
  lowestNeeded(): Promise<number | undefined>;
}
