#!/usr/bin/env node
// A test-only server that speaks the MongoDB wire protocol on 127.0.0.1, for the MongoDB engine's
// tests and benchmarks where no MongoDB can be installed. It keeps everything in memory, answers
// the commands the official driver sends for svcgen's repositories (commands.mjs: find, insert,
// update (with update pipelines too), delete, findAndModify, aggregate, count, distinct, createIndexes with unique, sparse and
// partial indexes, renameCollection, transactions, sessions), and poses as a one-member replica set so that the driver uses
// sessions and transactions. It is not MongoDB: its speed and its locking (one transaction at a
// time) say nothing about a real deployment. Run it alone with `node scripts/mongo-test-server --port 27017`.
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from './commands.mjs';
import { CommandError, Store } from './store.mjs';
import { encodeReply, messageReader, parseRequest } from './wire.mjs';

/** Commands that touch no data: answered at once, even while a transaction holds the store. */
const LOCK_FREE = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'buildInfo', 'endSessions', 'killCursors']);

/** Stands for a collection that does not exist yet: no open transaction has written to it. */
const NOT_WRITTEN = Symbol('a collection that does not exist');

/** Commands whose argument is a namespace (`db.collection`), not a collection of the command's database. */
const ON_NAMESPACES = new Set(['renameCollection']);

/** `replicaSet: null`: a standalone server (no transactions). */
export async function startMongoTestServer({ port = 0, host = '127.0.0.1', replicaSet = 'rs0' } = {}) {
  const store = new Store();
  const sockets = new Set();
  const server = { replicaSet, address: '', connections: 0, commands: new Map(), failPoint: null };
  const tcp = createServer((socket) => {
    server.connections++;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      // A client that went away (killed) leaves its transaction open: MongoDB would let it time
      // out without holding anyone up; here, where transactions take turns, it is aborted now.
      if (store.transaction && store.transaction.socket === socket) store.abort();
    });
    socket.on('error', () => socket.destroy());
    const read = messageReader((header, body) => {
      respond(header, body, socket).then(
        (reply) => socket.writable && socket.write(reply),
        () => socket.destroy(),
      );
    });
    socket.on('data', (chunk) => {
      try {
        read(chunk);
      } catch {
        socket.destroy();
      }
    });
  });

  async function respond(header, body, socket) {
    const { command, legacy } = parseRequest(header, body);
    return encodeReply(header, legacy, await execute(command, socket));
  }

  async function execute(command, socket) {
    const name = Object.keys(command)[0];
    server.commands.set(name, (server.commands.get(name) ?? 0) + 1);
    const handler = COMMANDS[name];
    if (!handler)
      return failure(
        new CommandError(
          59,
          'CommandNotFound',
          `no such command: '${name}' (the svcgen test server implements ${Object.keys(COMMANDS).join(', ')})`,
        ),
      );
    for (const part of queriesOf(command)) unicodeRegexes(part);
    const context = { store, server, db: command.$db ?? 'test' };
    const injected = failPointError(server, name, command, context.db);
    if (injected) return injected;
    if (LOCK_FREE.has(name)) return handler(command, context);
    const inTransaction = command.autocommit === false;
    if (inTransaction && !server.replicaSet) {
      return failure(
        new CommandError(
          20,
          'IllegalOperation',
          'Transaction numbers are only allowed on a replica set member or mongos',
        ),
      );
    }
    const session = inTransaction ? sessionKey(command) : Symbol('no transaction');
    // A collection that does not exist is not created by a command that only names it (a read, as in MongoDB).
    const collection =
      typeof command[name] === 'string' && !ON_NAMESPACES.has(name)
        ? (store.collection(context.db, command[name], false) ?? NOT_WRITTEN)
        : null;
    try {
      return await store.withTurn(session, collection, inTransaction, () => {
        // A command that waited for its turn while its client went away (killed) would open a
        // transaction nobody ends: it is dropped, and the client's transaction with it.
        if (socket?.destroyed) {
          if (inTransaction && ownsTransaction(store, session, command)) store.abort();
          throw new CommandError(6, 'HostUnreachable', 'the client went away');
        }
        if (inTransaction && command.startTransaction) store.begin(session, command.txnNumber);
        else if (inTransaction && !ownsTransaction(store, session, command)) {
          if (name === 'abortTransaction') return { ok: 1 };
          throw new CommandError(251, 'NoSuchTransaction', 'the transaction was aborted (an error, or idle too long)', [
            'TransientTransactionError',
          ]);
        }
        if (inTransaction) {
          store.record();
          store.transaction.socket = socket;
        }
        try {
          return handler(command, context);
        } catch (error) {
          // As in MongoDB, an error inside a transaction aborts it: later commands of it fail.
          if (inTransaction) store.abort();
          throw error;
        }
      });
    } catch (error) {
      return failure(error);
    }
  }

  await new Promise((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, host, resolve);
  });
  const bound = tcp.address();
  server.address = `${host}:${bound.port}`;
  return {
    port: bound.port,
    url: `mongodb://${host}:${bound.port}/?directConnection=true`,
    store,
    /** How often each command was received (the server's own tests check what the driver sends). */
    commands: server.commands,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        tcp.close(() => resolve());
      }),
  };
}

/** The error the `failCommand` fail point asks for, if it applies to this command. */
function failPointError(server, name, command, db) {
  const point = server.failPoint;
  if (!point || point.remaining <= 0 || !(point.failCommands ?? []).includes(name)) return null;
  if (point.namespace && point.namespace !== `${db}.${command[name]}`) return null;
  point.remaining--;
  return {
    ok: 0,
    errmsg: 'Failing command via failCommand failpoint',
    code: point.errorCode ?? 1,
    codeName: 'FailPoint',
    ...(point.errorLabels ? { errorLabels: point.errorLabels } : {}),
  };
}

/** The open transaction is this command's: the same session and transaction number. */
function ownsTransaction(store, session, command) {
  const open = store.transaction;
  return Boolean(open && open.session === session && Number(open.txnNumber) === Number(command.txnNumber));
}

function sessionKey(command) {
  const id = command.lsid?.id;
  return id?.buffer ? Buffer.from(id.buffer).toString('hex') : JSON.stringify(id ?? null);
}

function failure(error) {
  if (error instanceof CommandError) {
    return {
      ok: 0,
      errmsg: error.message,
      code: error.code,
      codeName: error.codeName,
      ...(error.labels ? { errorLabels: error.labels } : {}),
      // Duplicate keys outside ordered writes (findAndModify) name the index's key, as MongoDB does.
      ...(error.keyPattern ? { keyPattern: error.keyPattern, keyValue: error.keyValue } : {}),
    };
  }
  return { ok: 0, errmsg: `test server error: ${error?.message ?? error}`, code: 1, codeName: 'InternalError' };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const index = process.argv.indexOf('--port');
  const running = await startMongoTestServer({ port: index > 0 ? Number(process.argv[index + 1]) : 27017 });
  console.log(`svcgen's MongoDB test server: ${running.url}`);
}

/**
 * MongoDB matches `$regex` with PCRE2 in UTF mode: `i` ignores case by Unicode's case folding
 * (ß and ẞ, s and ſ, k and the Kelvin sign alike). mingo compiles it with JavaScript's flags as
 * given, where `i` without `u` folds by upper-casing one character at a time: with `u` added, as
 * MongoDB does. A pattern JavaScript takes only without `u` keeps its flags.
 */
function unicodeRegexes(value) {
  if (value === null || typeof value !== 'object') return;
  if (!Array.isArray(value) && ![Object.prototype, null].includes(Object.getPrototypeOf(value))) return;
  if (typeof value.$regex === 'string' && typeof value.$options === 'string' && !value.$options.includes('u')) {
    try {
      new RegExp(value.$regex, `${value.$options}u`);
      value.$options = `${value.$options}u`;
    } catch {
      // as given
    }
  }
  for (const child of Object.values(value)) unicodeRegexes(child);
}

/** The conditions of a command (never the documents it writes, whose dicts may hold `$regex` as data). */
function queriesOf(command) {
  const statements = [...(command.updates ?? []), ...(command.deletes ?? [])];
  return [command.filter, command.query, command.pipeline, ...statements.map((s) => s?.q)].filter(Boolean);
}
