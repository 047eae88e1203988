/**
 * A connection PostgreSQL ends right after it is made (`pg_terminate_backend` while the service
 * opens connections under load) must not crash the process. A probe's service exited on
 * "terminating connection due to administrator command (57P01)": the server's ErrorResponse came
 * in the same packet as the ReadyForQuery that lent the new connection out, and node-postgres
 * emitted it as an `error` event before the borrower could listen. Here a server of a few lines
 * speaks just enough of PostgreSQL's protocol to do that on every connection.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../runtime/src/lib/database.js';
import { openSql, type SqlDatabase } from '../../runtime/src/lib/sql/executor.js';

/** One backend message: its type byte, its length, its body. */
function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

const AUTHENTICATION_OK = message('R', Buffer.from([0, 0, 0, 0]));
const READY_FOR_QUERY = message('Z', Buffer.from('I'));
const TERMINATED = message(
  'E',
  Buffer.from('SFATAL\0C57P01\0Mterminating connection due to administrator command\0\0', 'latin1'),
);

/** Accepts a connection, says it is ready and, in the same write, that it is being terminated. */
function killingServer(): Promise<Server> {
  const server = createServer((socket: Socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.write(Buffer.concat([AUTHENTICATION_OK, READY_FOR_QUERY, TERMINATED]));
      socket.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('connections PostgreSQL ends as they are made', () => {
  let server: Server | undefined;
  let sql: SqlDatabase | undefined;

  afterEach(async () => {
    await sql?.close().catch(() => undefined);
    await new Promise((resolve) => server?.close(resolve));
  });

  it('fail the work that wanted them, as a database that is not there, and the process goes on', async () => {
    server = await killingServer();
    const address = server.address() as { port: number };
    sql = openSql(`postgres://svc@127.0.0.1:${address.port}/killed`);
    const uncaught: unknown[] = [];
    const note = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', note);
    try {
      for (let i = 0; i < 5; i++) {
        // A transaction (a connection lent out) and a group commit's write both borrow one.
        const failed = await sql
          .transaction((tx) => tx.all({ sql: 'select 1', parameters: [] }))
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        expect(failed).toBeInstanceOf(Error);
        expect(isDatabaseUnavailable(failed), String(failed)).toBe(true);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('uncaughtException', note);
    }
    expect(uncaught).toEqual([]);
  });
});
