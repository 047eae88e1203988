/**
 * Read-only fields with auth off (runtime/src/lib/http/policy.ts `openPolicy`): nobody is an admin,
 * so no body writes them, and a PUT keeps their stored values (`writable`); write-once fields are
 * written by creates alone. With auth on, the library's e2e tests (library-trust) check the same
 * for members, and that admins may; test/e2e/write-once.e2e.test.ts write-once fields.
 */
import { describe, expect, it } from 'vitest';

interface Field {
  readonly name: string;
  readonly readOnly?: boolean;
  readonly writeOnce?: boolean;
}
interface Model {
  field(name: string): Field | undefined;
}
interface OpenPolicy {
  writable(request: object, model: Model, object?: object, creating?: boolean): (name: string) => boolean;
  checkWritable(request: object, model: Model, fields: readonly string[], object?: object, creating?: boolean): void;
}
const { openPolicy } = (await import(new URL('../../runtime/src/lib/http/policy.ts', import.meta.url).href)) as {
  openPolicy: (maxLimit: number) => OpenPolicy;
};

const fields: Record<string, Field> = {
  code: { name: 'code', readOnly: true },
  title: { name: 'title' },
  born: { name: 'born', writeOnce: true },
};
const model: Model = { field: (name) => fields[name] };

/** What `checkWritable` of `fields` throws (undefined: nothing). */
function refusal(policy: OpenPolicy, fields: readonly string[]): unknown {
  try {
    policy.checkWritable({}, model, fields);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('read-only fields with auth off', () => {
  const policy = openPolicy(100);

  it('are refused in a body, 403 naming each', () => {
    expect(() => policy.checkWritable({}, model, ['title'])).not.toThrow();
    expect(refusal(policy, ['title', 'code'])).toMatchObject({
      statusCode: 403,
      errors: [{ field: 'code', message: expect.stringContaining('read-only') }],
    });
  });

  it('are not written by a PUT, which keeps what they hold', () => {
    const writable = policy.writable({}, model);
    expect([writable('title'), writable('code'), writable('unknown')]).toEqual([true, false, true]);
  });

  it('write-once fields: written by a create, refused in any other write (403 naming each)', () => {
    expect(() => policy.checkWritable({}, model, ['title', 'born'], undefined, true)).not.toThrow();
    expect(() => policy.checkWritable({}, model, ['code'], undefined, true)).toThrow('you may not write code');
    expect(refusal(policy, ['title', 'born'])).toMatchObject({
      statusCode: 403,
      errors: [{ field: 'born', message: expect.stringContaining('write-once') }],
    });
    expect([policy.writable({}, model)('born'), policy.writable({}, model, undefined, true)('born')]).toEqual([
      false,
      true,
    ]);
  });
});
