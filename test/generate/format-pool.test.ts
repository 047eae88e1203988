/** Formatting on worker threads gives what prettier gives in this thread, and reports its failures. */
import { describe, expect, it } from 'vitest';
import { formatSource } from '../../src/format/format.js';
import { startFormatterPool } from '../../src/format/pool.js';

const FILES: readonly (readonly [string, string])[] = [
  ['src/a.ts', "export const a = {b:1,c:[1,2,3]}\nexport function f(x:number){return x*2}\n"],
  ['README.md', '| a | b |\n|---|---|\n| 1 | 22 |\n'],
  ['openapi.json', '{"a":[1,2],"b":{"c":true}}'],
  ['service.ini', '[service]\nport=3000\n'],
];

describe('startFormatterPool', () => {
  it.each([1, 2, 3])('with %i thread(s) formats every file as prettier does in this thread', async (size) => {
    const pool = startFormatterPool(size);
    try {
      const pooled = await Promise.all(FILES.map(([path, text]) => pool.format(path, text)));
      const direct = await Promise.all(FILES.map(([path, text]) => formatSource(path, text)));
      expect(pooled).toEqual(direct);
      expect(pooled[0]).toBe("export const a = { b: 1, c: [1, 2, 3] };\nexport function f(x: number) {\n  return x * 2;\n}\n");
      expect(pooled[3]).toBe(FILES[3]![1]);
    } finally {
      await pool.close();
    }
  });

  it('rejects with prettier’s message when a file does not parse', async () => {
    const pool = startFormatterPool(2);
    try {
      await expect(pool.format('src/broken.ts', 'export const = ;')).rejects.toThrow(/prettier failed in a worker/);
      // The worker goes on formatting after a failure.
      await expect(pool.format('src/ok.ts', 'let x=1')).resolves.toBe('let x = 1;\n');
    } finally {
      await pool.close();
    }
  });
});
