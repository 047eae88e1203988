/**
 * A project's own ACL matrix test where a model created below a parent requires another link (an
 * order line's book, below its order), as the generated README advises where a handler needs the
 * link. A probe's `npm test` failed: the matrix sent a body without the book, so a member's create
 * below an order they may not view was the body's 400, not the hidden parent's 404 the matrix
 * (svcgen inspect --acl) says. The test's helper now gives such a body the links it requires.
 */
import { expect, it } from 'vitest';
import { securedRaml, userSchema } from '../support/files.js';
import { projectOf, tool } from '../support/project.js';

const API = securedRaml(
  'Bookshop',
  {
    shelf: {
      collection: 'allow g:admin all\nallow authenticated view',
      item: 'allow g:admin all\nallow authenticated view',
    },
    lines_acl: { collection: 'allow g:admin all\nallow authenticated view, create' },
    orders_acl: {
      collection: 'allow g:admin all\nallow authenticated view, create',
      item: 'allow g:admin all\nallow {{customer}} all\ndeny everyone all',
    },
  },
  `
/books:
  securedBy: [shelf]
  get:
  post:
    body:
      application/json:
        schema: !include book.json
  /{id}:
    get:
/orders:
  securedBy: [orders_acl]
  get:
  post:
    body:
      application/json:
        schema: !include order.json
  /{id}:
    get:
    /lines:
      securedBy: [lines_acl]
      get:
      post:
        body:
          application/json:
            schema: !include order_line.json
/users:
  securedBy: [shelf]
  get:
  /{username}:
    get:
`,
);

const id = { _db_settings: { type: 'id_field', primary_key: true } };
const fk = (document: string, table: string) => ({
  _db_settings: { type: 'foreign_key', ref_document: document, ref_column: `${table}.id`, ref_column_type: 'id_field' },
});

const FILES = {
  'api.raml': API,
  'user.json': userSchema(),
  'book.json': JSON.stringify({
    type: 'object',
    properties: {
      id,
      title: { _db_settings: { type: 'string', required: true } },
      order_lines: { _db_settings: { type: 'relationship', document: 'OrderLine', backref_name: 'book' } },
    },
  }),
  'order.json': JSON.stringify({
    type: 'object',
    properties: {
      id,
      customer: { _db_settings: { type: 'string' } },
      lines: { _db_settings: { type: 'relationship', document: 'OrderLine', backref_name: 'order' } },
    },
  }),
  'order_line.json': JSON.stringify({
    type: 'object',
    required: ['book'],
    properties: {
      id,
      quantity: { _db_settings: { type: 'integer', required: true, default: 1 } },
      order_id: fk('Order', 'order'),
      book_id: fk('Book', 'book'),
    },
  }),
};

it('passes its own ACL matrix test where a create below a parent requires another link', async () => {
  const dir = await projectOf(FILES, 'e2e-acl-required-links');
  const matrix = await tool(dir, 'vitest', ['run', 'test/acl.test.ts', '--reporter=verbose']);
  expect(matrix.exitCode, matrix.all?.slice(-3000)).toBe(0);
  // The row at stake: a member's create below an order they may not view is the hidden parent's 404.
  expect(matrix.all).toMatch(/POST \/orders\/\{id\}\/lines as member: 404/);
  expect(matrix.all).toMatch(/Tests\s+\d+ passed/);
}, 600_000);
