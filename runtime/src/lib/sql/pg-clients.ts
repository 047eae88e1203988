/**
 * What PostgreSQL's transactions and group commits share about the pool's connections: lending
 * one out, watched for its loss, and giving it back only when it is fit for its next user; and
 * which errors say that what failed may succeed when run again.
 */
import type pg from 'pg';

/**
 * A pooled connection lent out for one piece of work. The pool stops listening for a connection's
 * errors while it is lent: a server that goes away meanwhile would otherwise crash the process.
 * The statements fail by themselves (a 503); a lost connection is dropped, not given back, and so
 * is one that may still be inside a transaction (`drop`, or `notIdle`).
 */
export class LentClient {
  #lost: Error | undefined;
  readonly #onLost = (error: Error): void => void (this.#lost = error);

  constructor(readonly client: pg.PoolClient) {
    client.on('error', this.#onLost);
  }

  /** The error that ended the connection while it was lent, if one did. */
  get lost(): Error | undefined {
    return this.#lost;
  }

  /** Not to be lent again: its state is not known (a ROLLBACK that failed, this code's own failure). */
  drop(error: unknown): void {
    this.#lost ??= error instanceof Error ? error : new Error(String(error));
  }

  giveBack(): void {
    this.client.removeListener('error', this.#onLost);
    this.client.release(this.#lost ?? notIdle(this.client));
  }
}

/**
 * Why a connection that is up must not go back to the pool: the server last said it is inside a
 * transaction (its ROLLBACK failed, or never ran). Lent again, its next user's statements would
 * join that transaction: answered as done, seen by no other connection, undone when it closes.
 */
function notIdle(client: pg.PoolClient): Error | undefined {
  const status = client.getTransactionStatus();
  return status === 'I' ? undefined : new Error(`connection not given back: transaction status ${status}, not idle`);
}

/**
 * serialization_failure, deadlock_detected: PostgreSQL undid the whole transaction, and advises
 * running it again.
 */
export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === '40001' || code === '40P01';
}
