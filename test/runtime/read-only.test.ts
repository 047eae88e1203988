/**
 * Read-only fields with auth off (runtime/src/lib/http/policy.ts `openPolicy`): nobody is an admin,
 * so no body writes them, and a PUT keeps their stored values (`writable`). With auth on, the
 * library's e2e tests (library-trust) check the same for members, and that admins may.
 */
import { describe, expect, it } from 'vitest';

interface Field {
  readonly name: string;
  readonly readOnly?: boolean;
}
interface Model {
  field(name: string): Field | undefined;
}
interface OpenPolicy {
  writable(request: object, model: Model): (name: string) => boolean;
  checkWritable(request: object, model: Model, fields: readonly string[]): void;
}
const { openPolicy } = (await import(new URL('../../runtime/src/lib/http/policy.ts', import.meta.url).href)) as {
  openPolicy: (maxLimit: number) => OpenPolicy;
};

const fields: Record<string, Field> = { code: { name: 'code', readOnly: true }, title: { name: 'title' } };
const model: Model = { field: (name) => fields[name] };

describe('read-only fields with auth off', () => {
  const policy = openPolicy(100);

  it('are refused in a body, 403 naming each', () => {
    expect(() => policy.checkWritable({}, model, ['title'])).not.toThrow();
    let thrown: unknown;
    try {
      policy.checkWritable({}, model, ['title', 'code']);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      statusCode: 403,
      errors: [{ field: 'code', message: expect.stringContaining('read-only') }],
    });
  });

  it('are not written by a PUT, which keeps what they hold', () => {
    const writable = policy.writable({}, model);
    expect([writable('title'), writable('code'), writable('unknown')]).toEqual([true, false, true]);
  });
});
