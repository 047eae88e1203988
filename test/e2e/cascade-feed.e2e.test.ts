/**
 * A cascade's deletions in the change feed, when who may see a deleted object depends on another
 * that went with it: a line item is its order's customer's (its principal reads the order by key).
 * The order's deletion takes its lines along, and each line's deletion is judged with the order
 * as it was (lib/feed/as-it-was.ts): a probe's customer got the order's `delete` and never her
 * lines', which a client that follows the feed then keeps for ever. Another member gets none of
 * them, live or replayed. SQLite, PostgreSQL and the MongoDB test server, auth on.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/databases.js';
import { openFeed, type FeedMessage } from '../support/feed.js';
import { securedRaml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';

const API = securedRaml(
  'Orders',
  {
    order_acl: {
      collection: 'allow g:admin all\nallow authenticated view',
      item: 'allow g:admin all\nallow {{customer}} view, delete\ndeny everyone all',
    },
    line_acl: {
      collection: 'allow g:admin all\nallow authenticated view',
      item: 'allow g:admin all\nallow {{order_customer}} view, delete\ndeny everyone all',
    },
  },
  `
/orders:
  securedBy: [order_acl]
  get:
  post:
    body:
      application/json:
        schema: !include order.json
  /{id}:
    get:
    delete:
/lines:
  securedBy: [line_acl]
  get:
  post:
    body:
      application/json:
        schema: !include line.json
  /{id}:
    get:
    delete:
`,
);

const id = { _db_settings: { type: 'id_field', primary_key: true } };

const FILES = {
  'api.raml': API,
  'order.json': JSON.stringify({
    type: 'object',
    properties: {
      id,
      customer: { type: 'string', _db_settings: { type: 'string', required: true } },
      lines: { _db_settings: { type: 'relationship', document: 'Line', backref_name: 'order' } },
    },
  }),
  'line.json': JSON.stringify({
    type: 'object',
    properties: {
      id,
      qty: { type: 'integer', _db_settings: { type: 'integer', required: true } },
      order_id: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'Order',
          ref_column: 'order.id',
          ref_column_type: 'id_field',
          ref_ondelete: 'CASCADE',
        },
      },
    },
  }),
};

const CUSTOMER = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Order } from '../../models/order.js';

export function customer(request: FastifyRequest, object: Order | undefined, rule: AclRule): AclResult {
  return object && request.user?.['username'] === object.customer ? grant(rule, user(object.customer)) : undefined;
}
`;

/** A line is its order's customer's: the order read by key, as such rules are written. */
const ORDER_CUSTOMER = `import type { FastifyRequest } from 'fastify';
import { databaseOf } from '../../db/index.js';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Line } from '../../models/line.js';

export async function orderCustomer(request: FastifyRequest, object: Line | undefined, rule: AclRule): Promise<AclResult> {
  if (!object || object.order_id === null || object.order_id === undefined) return undefined;
  const order = await databaseOf(request).order.findUnique({ where: { id: object.order_id } });
  return order ? grant(rule, user(order.customer)) : undefined;
}
`;

type Event = { data: { pk: string; object: Record<string, unknown> } };
const events = (ms: readonly FeedMessage[], type: string) =>
  ms.filter((m) => m.event === type).map((m) => (JSON.parse(m.data) as Event).data.pk);

describe.each(ENGINES)("a cascade's deletions in the change feed, on %s", (engine) => {
  let served: ServedApi;
  let tokens: Map<string, string>;
  const api: Api = (...args) => served.api(...args);
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });
  const feedOf = (name: string, from?: number) =>
    openFeed(`${served.origin}/v1/_events`, {
      authorization: tokens.get(name)!,
      ...(from === undefined ? {} : { 'last-event-id': String(from) }),
    });

  beforeAll(async () => {
    served = await servedApi(FILES, `e2e-cascade-feed-${engine}`, {
      engine,
      env: rootAuthEnv(),
      prepare: (dir) => {
        writeFileSync(join(dir, 'src/custom/principals/customer.ts'), CUSTOMER);
        writeFileSync(join(dir, 'src/custom/principals/order-customer.ts'), ORDER_CUSTOMER);
      },
    });
    tokens = await memberTokens(api, ['carol', 'dave']);
  }, 600_000);

  afterAll(() => served?.stop());

  it("sends the customer each line's deletion with her order's, live and replayed, and another member none", async () => {
    const carol = await feedOf('carol');
    const dave = await feedOf('dave');
    const admin = await feedOf('root');
    try {
      const order = await api('POST', '/orders', { customer: 'carol' }, as('root'));
      expect(order.status, order.text).toBe(201);
      const orderId = String(order.body['id']);
      const lines: string[] = [];
      for (const qty of [1, 2]) {
        const line = await api('POST', '/lines', { qty, order: order.body['id'] }, as('root'));
        expect(line.status, line.text).toBe(201);
        lines.push(String(line.body['id']));
      }
      await carol.until((ms) => events(ms, 'Line.create').length === 2);
      const deleted = await api('DELETE', `/orders/${orderId}`, undefined, as('carol'));
      expect(deleted.status, deleted.text).toBe(200);
      await admin.until((ms) => events(ms, 'Line.delete').length === 2);
      await carol.until((ms) => events(ms, 'Line.delete').length === 2);
      expect([events(carol.messages, 'Order.delete'), events(carol.messages, 'Line.delete').sort()]).toEqual([
        [orderId],
        [...lines].sort(),
      ]);
      // Replayed from before the order: of objects gone, only their deletions.
      const replay = await feedOf('carol', 0);
      try {
        await replay.until((ms) => events(ms, 'Line.delete').length === 2);
        expect(events(replay.messages, 'Line.create')).toEqual([]);
      } finally {
        replay.close();
      }
      // Resumed after the order's deletion: the lines' are judged with the order read back from the log.
      const orderDeleted = Number(carol.messages.find((m) => m.event === 'Order.delete')!.id);
      const resumed = await feedOf('carol', orderDeleted);
      try {
        await resumed.until((ms) => events(ms, 'Line.delete').length === 2);
        expect(events(resumed.messages, 'Order.delete')).toEqual([]);
      } finally {
        resumed.close();
      }
      // Dave saw none of it: the deletions were carol's, not his (the admin's last came after them).
      const marker = await api('POST', '/orders', { customer: 'dave' }, as('root'));
      await dave.until((ms) => events(ms, 'Order.create').includes(String(marker.body['id'])));
      expect(dave.messages.filter((m) => m.event === 'Line.delete' || m.event === 'Line.create')).toEqual([]);
      const daveReplay = await feedOf('dave', 0);
      try {
        await daveReplay.until((ms) => events(ms, 'Order.create').includes(String(marker.body['id'])));
        const seen = daveReplay.messages.map((m) => m.event ?? '').filter((type) => /^(Order|Line)\./.test(type));
        expect(seen).toEqual(['Order.create']);
      } finally {
        daveReplay.close();
      }
    } finally {
      for (const feed of [carol, dave, admin]) feed.close();
    }
  });
});
