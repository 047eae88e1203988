// The MongoDB wire protocol, as far as the official driver uses it: OP_MSG (every command) and
// OP_QUERY / OP_REPLY (the driver's first handshake, sent before it knows the server's version).
// https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/
import { BSON } from 'bson';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;
const OP_COMPRESSED = 2012;
const CHECKSUM_PRESENT = 1;

const DESERIALIZE = { promoteLongs: true, promoteValues: true, promoteBuffers: false, bsonRegExp: false };

/**
 * Splits a byte stream into messages: feed it chunks, it calls `onMessage(header, body)` for each
 * complete message.
 */
export function messageReader(onMessage) {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 4) {
      const length = pending.readInt32LE(0);
      if (length < 16 || length > 48_000_000) throw new Error(`bad message length ${length}`);
      if (pending.length < length) return;
      const message = pending.subarray(0, length);
      pending = pending.subarray(length);
      onMessage(
        { requestId: message.readInt32LE(4), responseTo: message.readInt32LE(8), opCode: message.readInt32LE(12) },
        message.subarray(16),
      );
    }
  };
}

/** A request as a command document: OP_MSG sections merged (document sequences become arrays). */
export function parseRequest(header, body) {
  if (header.opCode === OP_MSG) return { command: parseMsg(body), legacy: false };
  if (header.opCode === OP_QUERY) return { command: parseQuery(body), legacy: true };
  if (header.opCode === OP_COMPRESSED) throw new Error('compression is not supported by the test server');
  throw new Error(`unsupported opCode ${header.opCode}`);
}

function parseMsg(body) {
  const flags = body.readUInt32LE(0);
  const end = flags & CHECKSUM_PRESENT ? body.length - 4 : body.length;
  let offset = 4;
  let command = null;
  const sequences = {};
  while (offset < end) {
    const kind = body[offset++];
    if (kind === 0) {
      const size = body.readInt32LE(offset);
      command = BSON.deserialize(body.subarray(offset, offset + size), DESERIALIZE);
      offset += size;
    } else if (kind === 1) {
      const size = body.readInt32LE(offset);
      const sectionEnd = offset + size;
      let cursor = offset + 4;
      const nameEnd = body.indexOf(0, cursor);
      const name = body.toString('utf8', cursor, nameEnd);
      cursor = nameEnd + 1;
      const documents = [];
      while (cursor < sectionEnd) {
        const docSize = body.readInt32LE(cursor);
        documents.push(BSON.deserialize(body.subarray(cursor, cursor + docSize), DESERIALIZE));
        cursor += docSize;
      }
      sequences[name] = documents;
      offset = sectionEnd;
    } else throw new Error(`unknown OP_MSG section kind ${kind}`);
  }
  if (!command) throw new Error('OP_MSG without a body section');
  return { ...command, ...sequences };
}

function parseQuery(body) {
  let offset = 4; // flags
  const nameEnd = body.indexOf(0, offset);
  const collection = body.toString('utf8', offset, nameEnd);
  offset = nameEnd + 1 + 8; // numberToSkip, numberToReturn
  const size = body.readInt32LE(offset);
  let query = BSON.deserialize(body.subarray(offset, offset + size), DESERIALIZE);
  if (query.$query) query = query.$query;
  return { ...query, $db: collection.split('.')[0] };
}

let nextRequestId = 1;

/** The reply to a request, in the protocol it came in. */
export function encodeReply(header, legacy, document) {
  const doc = BSON.serialize(document);
  const payload = legacy ? legacyReply(doc) : Buffer.concat([Buffer.alloc(4), Buffer.from([0]), doc]);
  const head = Buffer.alloc(16);
  head.writeInt32LE(16 + payload.length, 0);
  head.writeInt32LE(nextRequestId++, 4);
  head.writeInt32LE(header.requestId, 8);
  head.writeInt32LE(legacy ? OP_REPLY : OP_MSG, 12);
  return Buffer.concat([head, payload]);
}

function legacyReply(doc) {
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(0, 0); // responseFlags
  fields.writeBigInt64LE(0n, 4); // cursorID
  fields.writeInt32LE(0, 12); // startingFrom
  fields.writeInt32LE(1, 16); // numberReturned
  return Buffer.concat([fields, doc]);
}
