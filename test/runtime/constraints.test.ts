/**
 * Constraint errors as the service answers them (runtime/src/lib/sql/constraints.ts): on
 * PostgreSQL a link written to an object that a delete took away after the write checked it (a
 * probe's booking, made while its company was deleted) is that link's 400 naming the object, as the
 * same write a moment later is told; only a delete that something still refers to is the 409.
 */
import { describe, expect, it } from 'vitest';
import { constraintViolation } from '../../runtime/src/lib/sql/constraints.js';
import { ConstraintViolation, UnknownReference } from '../../runtime/src/lib/repository.js';
import { testField, testModel } from '../support/models.js';

const booking = testModel({
  name: 'Booking',
  table: 'booking',
  primaryKey: 'id',
  selfPath: (record) => `/bookings/${String(record['id'])}`,
  fields: [testField('id', { type: 'id_field', storage: 'integer', primaryKey: true, generated: true })],
  relations: [
    {
      name: 'company',
      target: 'Company',
      cardinality: 'one',
      inverse: 'bookings',
      foreignKey: 'company_id',
      local: true,
      onDelete: 'nullify',
      createdBelow: [],
    },
  ],
});

describe('a broken foreign key on PostgreSQL', () => {
  it('is the link’s 400 where the object it names is gone', () => {
    const error = Object.assign(new Error('insert or update on table "booking" violates foreign key constraint'), {
      code: '23503',
      detail: 'Key (company_id)=(5) is not present in table "company".',
    });
    const said = constraintViolation(error, booking);
    expect(said).toBeInstanceOf(UnknownReference);
    expect([(said as UnknownReference).field, said!.message]).toEqual(['company', 'Company 5 not found']);
  });

  it('is the 409 of a delete that something still refers to', () => {
    const error = Object.assign(new Error('update or delete on table "company" violates foreign key constraint'), {
      code: '23503',
      detail: 'Key (id)=(5) is still referenced from table "booking".',
    });
    const said = constraintViolation(error, booking);
    expect(said).toBeInstanceOf(ConstraintViolation);
    expect((said as ConstraintViolation).kind).toBe('foreign_key');
  });
});

describe('the keys a relationship write names that do not exist', () => {
  // A probe's `{"visits": [77, 77, "77"]}` was "Visit 77, 77, 77 not found".
  it('are named once each, and at most twenty', () => {
    expect(new UnknownReference('visits', 'Visit', [77, 77, '77', 78]).message).toBe('Visit 77, 78 not found');
    const many = Array.from({ length: 30 }, (_, i) => [i, String(i)]).flat();
    expect(new UnknownReference('visits', 'Visit', many).message).toBe(
      `Visit ${Array.from({ length: 20 }, (_, i) => i).join(', ')} and 10 more not found`,
    );
  });
});
