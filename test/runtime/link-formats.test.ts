/**
 * The `uri` and `uri-reference` formats of a body (runtime/src/lib/http/app.ts, patterns.ts):
 * URIs to RFC 3986 as ajv-formats reads them, but never a `javascript:` or `vbscript:` link, which a
 * front end rendering the stored value as `<a href>` would run in its viewers' pages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type App } from '../support/app.js';
import { errors } from '../../runtime/src/lib/http/error-handler.js';

let app: App | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function service(): Promise<App> {
  app = testApp(4096);
  const body = {
    type: 'object',
    properties: { link: { type: 'string', format: 'uri' }, ref: { type: 'string', format: 'uri-reference' } },
  };
  await app.register(errors);
  app.post('/links', { schema: { body } }, (request) => request.body);
  await app.ready();
  return app;
}

async function statusOf(server: App, body: object): Promise<number> {
  return (await server.inject({ method: 'POST', url: '/links', payload: body })).statusCode;
}

describe('links in a body', () => {
  it('take the URIs people link to', async () => {
    const server = await service();
    for (const link of ['https://example.com/a?b=c#d', 'mailto:someone@example.com', 'urn:isbn:0451450523', 'data:,hi'])
      expect(await statusOf(server, { link }), link).toBe(200);
    for (const ref of ['/photos/1', '../up', '#top', 'https://example.com'])
      expect(await statusOf(server, { ref }), ref).toBe(200);
  });

  it('refuse a script link in any case, as a URI and as a reference', async () => {
    const server = await service();
    for (const link of ['javascript:alert(1)', 'JavaScript:alert(document.cookie)', 'vbscript:msgbox(1)']) {
      expect(await statusOf(server, { link }), link).toBe(400);
      expect(await statusOf(server, { ref: link }), link).toBe(400);
    }
  });

  it("say why in the service's error shape: a script link as one, a URI with a space by what a URI is", async () => {
    const server = await service();
    const said = async (payload: object) =>
      (await server.inject({ method: 'POST', url: '/links', payload })).json<{ errors: unknown }>().errors;
    expect(await said({ link: 'javascript:alert(1)' })).toEqual([
      { field: 'link', message: 'must not be a javascript: or vbscript: link' },
    ]);
    expect(await said({ ref: 'vbscript:msgbox(1)' })).toEqual([
      { field: 'ref', message: 'must not be a javascript: or vbscript: link' },
    ]);
    // A space, no scheme: nothing to do with script, which the message once named.
    for (const link of ['https://example.com/a b', 'example.com'])
      expect(await said({ link })).toEqual([
        {
          field: 'link',
          message: 'must be an absolute URI, with a scheme (https://example.com/a%20b: a space written as %20)',
        },
      ]);
    expect(await said({ ref: '/a b' })).toEqual([
      { field: 'ref', message: 'must be a URI or a relative reference (a%20b: a space written as %20)' },
    ]);
  });

  it('refuse what browsers would still read as a script link', async () => {
    const server = await service();
    for (const link of [' javascript:alert(1)', 'java\tscript:alert(1)', 'java\nscript:alert(1)', '\u0001javascript:x'])
      expect(await statusOf(server, { link, ref: link }), JSON.stringify(link)).toBe(400);
  });
});
