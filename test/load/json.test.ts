/** Strict JSON with located problems (src/load/json.ts): every trailing comma of a schema in one run. */
import { describe, expect, it } from 'vitest';
import { parseJsonLocated } from '../../src/load/json.js';

const located = (start: number, end: number) => ({ start, end }) as never;

describe('parseJsonLocated', () => {
  it('reports every trailing comma, each at its comma, and still reads the value', () => {
    const text = '{\n  "a": [1, 2,],\n  "b": { "c": 1, },\n  "d": 3,\n}';
    const { node, problems } = parseJsonLocated(text, located);
    expect(problems.map((p) => [p.message, text.slice(0, p.offset).split('\n').length, text[p.offset]])).toEqual([
      ['trailing comma before "]"', 2, ','],
      ['trailing comma before "}"', 3, ','],
      ['trailing comma before "}"', 4, ','],
    ]);
    expect(node?.kind).toBe('map');
  });

  it('stops at a problem it cannot read past', () => {
    const { node, problems } = parseJsonLocated('{"a": 1,, "b": 2,}', located);
    expect(problems.map((p) => p.message)).toEqual(['expected a property name in double quotes']);
    expect(node).toBeUndefined();
  });
});
