/**
 * The outbox: every committed change of a stored object appends one event, in the change's own
 * transaction (a rolled-back request appends nothing). Webhooks (lib/webhooks/), the change feed
 * (lib/feed/) and in-process subscribers (`onCommitted`) read the events from there, after commit,
 * never inside a request.
 */

/** `<Model>.<action>`: Story.create, Story.update, Story.replace, Story.delete, User.register. */
export type EventAction = 'create' | 'update' | 'replace' | 'delete' | 'register';

/** One event, as webhooks POST it and the change feed sends it. */
export interface ServiceEvent<Type extends string = string, Data = EventData> {
  /** Unique and stable: receivers use it as an idempotency key (it is the `webhook-id`). */
  readonly id: string;
  /** Strictly increasing in commit order on one database. */
  readonly seq: number;
  readonly type: Type;
  /** When the change was made (ISO 8601, UTC). */
  readonly time: string;
  readonly data: Data;
}

export interface EventData<O = Record<string, unknown>> {
  /** The object's key, as `_pk` shows it (a string). */
  readonly pk: string;
  /**
   * The object after the change as an admin reads it (hidden fields and secrets omitted,
   * relationships as keys); for a delete, the object before it.
   */
  readonly object: O;
  /**
   * Of an update or a replace of a model whose schema says `_event_previous`: the object as it was
   * before the change, in the same form as `object`.
   */
  readonly previous?: O;
  /** With `previous`: the fields whose values differ between `previous` and `object`, in the model's order. */
  readonly changed?: readonly string[];
}

/** The data of an update or a replace of a model with `_event_previous`: `previous` and `changed` are always there. */
export type ChangeData<O = Record<string, unknown>> = EventData<O> & {
  readonly previous: O;
  readonly changed: readonly (keyof O & string)[];
};

/** An event about to be appended: the store gives it its `seq` (and its `id`, `time`). */
export interface NewEvent {
  readonly model: string;
  readonly action: EventAction;
  readonly pk: string;
  readonly object: Record<string, unknown>;
  readonly previous?: Record<string, unknown>;
  readonly changed?: readonly string[];
}

/** The outbox of one database (SQLite, PostgreSQL or MongoDB). */
export interface EventLog {
  /**
   * The events after `seq`, oldest first, at most `limit` of them, only those visible in commit
   * order: no event with a lower seq can appear after these were read.
   */
  after(seq: number, limit: number): Promise<ServiceEvent[]>;
  /** The events of these seqs (those still retained), in seq order. */
  bySeq(seqs: readonly number[]): Promise<ServiceEvent[]>;
  /**
   * The seq of the newest `create` or `register` event of one object after `seq`: when it began
   * to exist under this key (a user's key may have named a deleted user before). Undefined when
   * there is none after `seq`; `Infinity` when it is appended but not numbered yet (PostgreSQL):
   * it will be numbered after every event numbered so far.
   */
  createdAfter(model: string, pk: string, seq: number): Promise<number | undefined>;
  /**
   * The newest `delete` event of one object among the `within` events before `seq`: the object as
   * it was when it was deleted, which the change feed shows to the code that judges an event of
   * another object deleted with it (a cascade's). Undefined when there is none.
   */
  deletedBefore(model: string, pk: string, seq: number, within: number): Promise<ServiceEvent | undefined>;
  /** The seq of the oldest retained event, or undefined when there is none. */
  oldest(): Promise<number | undefined>;
  /** The highest seq so far (0 for none). */
  latest(): Promise<number>;
  /**
   * Gives committed events their `seq`, in the order they became visible (PostgreSQL, where the
   * appending transactions commit in any order); elsewhere `seq` is given at append and this does
   * nothing. Returns how many got one.
   */
  sequence(): Promise<number>;
  /**
   * Deletes up to `limit` events older than `before` and below `needed` (the lowest seq a
   * delivery still needs: `DeliveryStore.lowestNeeded`); returns how many.
   */
  prune(before: Date, limit: number, needed: number | undefined): Promise<number>;
}
