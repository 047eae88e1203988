/**
 * The functions the runtime writes per model the first time it needs them (issue 28, item 5)
 * against their interpreted twins, on random models, rows and records: a row's record
 * (sql/row-record.ts) and an object's answer (http/present.ts, through serialize.ts) are the same
 * objects, key for key, in the same order, with the same prototype, whatever the names (quotes,
 * line separators, numbers, `constructor`, `_type`; not `__proto__`, which the generator refuses),
 * the storages, the secrets, the relationships, the missing keys and the fields the caller sees.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  modelRegistry,
  type FieldSpec,
  type Model,
  type RelationSpec,
  type Storage,
} from '../../runtime/src/lib/model.js';
import { interpretedRowRecord, rowRecord } from '../../runtime/src/lib/sql/row-record.js';
import { serialize } from '../../runtime/src/lib/http/serialize.js';
import { testField, testModel } from '../support/models.js';

type Rec = Record<string, unknown>;

const NAMES = [
  'id',
  'name',
  'a-b',
  'say "hi"',
  'line\u2028break',
  '0',
  '12',
  '_type',
  '_pk',
  '_self',
  'constructor',
  'author',
  'tags',
];
const STORAGES: Storage[] = ['text', 'integer', 'real', 'boolean', 'json', 'datetime', 'date', 'time', 'blob'];

interface FieldPlan {
  readonly name: string;
  readonly storage: Storage;
  readonly list: boolean;
  readonly secret: boolean;
  /** A relationship field: kept in this table (a to-one link) or in the other's. */
  readonly relationship: 'local' | 'remote' | null;
}

const fieldPlan = fc.record({
  name: fc.constantFrom(...NAMES),
  storage: fc.constantFrom(...STORAGES),
  list: fc.boolean(),
  secret: fc.boolean(),
  relationship: fc.constantFrom<FieldPlan['relationship']>(null, null, 'local', 'remote'),
});

/** A model of the planned fields (unique names), its key the first; relationships lead to the model itself. */
function modelOf(plans: readonly FieldPlan[], self: 'none' | 'key'): Model {
  const [key, ...rest] = plans;
  const fields: FieldSpec[] = [];
  const relations: RelationSpec[] = [];
  for (const plan of [key!, ...rest]) {
    const isKey = plan === key;
    const relationship = isKey ? null : plan.relationship;
    if (relationship) {
      const foreignKey = `${plan.name}_fk`;
      const link = { storage: 'integer', relation: plan.name } as const;
      fields.push(testField(plan.name, { ...link, type: 'relationship', column: null }));
      if (relationship === 'local') fields.push(testField(foreignKey, { ...link, type: 'foreign_key' }));
      relations.push({
        name: plan.name,
        target: 'Thing',
        cardinality: relationship === 'local' ? 'one' : 'many',
        inverse: 'other',
        foreignKey,
        local: relationship === 'local',
        onDelete: 'nullify',
      });
    } else {
      fields.push(
        testField(plan.name, {
          type: plan.list ? 'list' : 'string',
          storage: plan.storage,
          primaryKey: isKey,
          secret: plan.secret || undefined,
        }),
      );
    }
  }
  return testModel({
    name: 'Thing',
    table: 'thing',
    primaryKey: key!.name,
    fields,
    relations,
    nestingDepth: 1,
    selfPath:
      self === 'none'
        ? () => null
        : (record) =>
            record[key!.name] === null || record[key!.name] === undefined
              ? null
              : `/things/${String(record[key!.name])}`,
  });
}

const models = fc
  .uniqueArray(fieldPlan, { minLength: 1, maxLength: 7, selector: (plan) => plan.name })
  .chain((plans) => fc.constantFrom<'none' | 'key'>('none', 'key').map((self) => modelOf(plans, self)));

const scalar = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.boolean(),
  fc.date({ noInvalidDate: true }),
  fc.constantFrom('2020-01-01 10:00:00', '2020-01-01T10:00:00+02:00', '[1,2]', '{"a":1}', '12:30:00.5'),
);
const value = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 }),
);

/** Some of `keys` (each left out one time in four), each with a value. */
function objectWith(keys: readonly string[]): fc.Arbitrary<Rec> {
  return fc.tuple(...keys.map(() => fc.tuple(fc.nat(3), value))).map((entries) => {
    const out: Rec = {};
    entries.forEach(([keep, v], i) => {
      if (keep > 0)
        Object.defineProperty(out, keys[i]!, { value: v, enumerable: true, writable: true, configurable: true });
    });
    return out;
  });
}

/** What a call gave: the object (its keys in order, its values, whether its prototype is plain), or what it threw. */
function outcome(call: () => Rec): unknown {
  try {
    const result = call();
    return {
      keys: Object.keys(result),
      json: JSON.stringify(result),
      values: result,
      plain: Object.getPrototypeOf(result) === Object.prototype,
    };
  } catch (error) {
    return { threw: String(error) };
  }
}

/** Node's deep equality (prototypes compared): vitest's would take a field named `constructor` for the object's class. */
const same = (compiled: unknown, interpreted: unknown): boolean => isDeepStrictEqual(compiled, interpreted);

describe('a row as a record', () => {
  it('is the interpreted record, whatever the model and the row', () => {
    const cases = models.chain((model) =>
      fc.tuple(fc.constant(model), objectWith([...model.columns.map((f) => f.column!), 'other'])),
    );
    fc.assert(
      fc.property(cases, ([model, row]) => {
        const [compiled, interpreted] = [
          outcome(() => rowRecord(model, row)),
          outcome(() => interpretedRowRecord(model, row)),
        ];
        expect(same(compiled, interpreted), JSON.stringify({ compiled, interpreted })).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('an object as the API shows it', () => {
  /**
   * The serializer as the service makes it, and one that interprets every object (`compiled:
   * false`), for a caller who sees `visible` (null: every field; a set: as field privacy gives it,
   * the same set on every call).
   */
  const serializers = (model: Model, visible: ReadonlySet<string> | null = null) => {
    const options = {
      baseUrl: 'http://host/api',
      requestUrl: 'http://host/api/things?x=1',
      models: modelRegistry([model]),
      visible: () => visible,
    };
    return { compiled: serialize(options), interpreted: serialize({ ...options, compiled: false }) };
  };

  it('is the interpreted answer, whatever the model, the record and the fields the caller sees, embedded objects too', () => {
    const cases = models.chain((model) => {
      const names = model.fields.map((f) => f.name);
      const embedded = fc.oneof(
        value,
        objectWith(names),
        fc.array(fc.oneof(scalar, objectWith(names)), { maxLength: 3 }),
      );
      const record = fc
        .tuple(objectWith(names), fc.array(embedded, { minLength: names.length, maxLength: names.length }))
        .map(([r, nested]) => {
          // Relationships hold keys, lists of them, or objects loaded with `_nested_relationships`.
          model.relations.forEach((relation, i) => {
            if (relation.name in r) r[relation.name] = nested[i];
          });
          return r;
        });
      // Every field seen, or some of them (as field privacy gives an audience one set, kept).
      const visible = fc.oneof(
        fc.constant(null),
        fc.subarray(names).map((some) => new Set(some)),
      );
      return fc.tuple(fc.constant(model), record, visible);
    });
    fc.assert(
      fc.property(cases, ([model, record, visible]) => {
        const { compiled, interpreted } = serializers(model, visible);
        const [fast, slow] = [
          outcome(() => compiled.object(model, record)),
          outcome(() => interpreted.object(model, record)),
        ];
        expect(same(fast, slow), JSON.stringify({ compiled: fast, interpreted: slow })).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves out secrets, fields the record lacks and fields the caller may not see, and ends with _type, _pk and _self', () => {
    const model = modelOf(
      [
        { name: 'id', storage: 'integer', list: false, secret: false, relationship: null },
        { name: 'password', storage: 'text', list: false, secret: true, relationship: null },
        { name: 'name', storage: 'text', list: false, secret: false, relationship: null },
      ],
      'key',
    );
    const { compiled } = serializers(model);
    expect(JSON.stringify(compiled.object(model, { id: 7, password: 'h', name: 'n' }))).toBe(
      '{"id":7,"name":"n","_type":"Thing","_pk":"7","_self":"http://host/api/things/7"}',
    );
    expect(JSON.stringify(compiled.object(model, { id: 7, password: 'h' }))).toBe(
      '{"id":7,"_type":"Thing","_pk":"7","_self":"http://host/api/things/7"}',
    );
    // Field privacy: a caller who may not see `name` does not, from the compiled presenter either.
    const { compiled: member } = serializers(model, new Set(['id', 'password']));
    expect(JSON.stringify(member.object(model, { id: 7, password: 'h', name: 'n' }))).toBe(
      '{"id":7,"_type":"Thing","_pk":"7","_self":"http://host/api/things/7"}',
    );
  });
});
