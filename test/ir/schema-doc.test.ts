/**
 * docs/schema.md, the reference of what a resource's JSON schema may say, names every key and type
 * the model builder reads (src/ir/build/fields.ts, models.ts): a setting added there without a word
 * here fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  COMMON_SETTINGS,
  IGNORED_SETTINGS,
  PROPERTY_KEYS,
  SETTINGS_BY_TYPE,
  TYPE_ALIASES,
} from '../../src/ir/build/fields.js';
import { ROOT_KEYS } from '../../src/ir/build/models.js';
import { FIELD_TYPES } from '../../src/ir/types.js';
import { repoRoot } from '../support/paths.js';

const doc = readFileSync(join(repoRoot, 'docs/schema.md'), 'utf8');
const missing = (names: Iterable<string>) => [...names].filter((name) => !doc.includes(`\`${name}\``));

describe('docs/schema.md', () => {
  it('names every root key, _db_settings key, property key and ignored option', () => {
    expect(missing(ROOT_KEYS)).toEqual([]);
    expect(missing(COMMON_SETTINGS)).toEqual([]);
    expect(missing(new Set(Object.values(SETTINGS_BY_TYPE).flat()))).toEqual([]);
    expect(missing(PROPERTY_KEYS)).toEqual([]);
    expect(missing(IGNORED_SETTINGS)).toEqual([]);
  });

  it('names every field type and its aliases', () => {
    expect(missing(FIELD_TYPES)).toEqual([]);
    expect(missing(Object.keys(TYPE_ALIASES))).toEqual([]);
  });
});
