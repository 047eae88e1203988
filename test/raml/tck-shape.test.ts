/**
 * The TCK printer (`svcgen inspect --tck`) has raml-1-parser's shape where the TCK corpus is
 * silent (issue 19). Each expectation below is what raml-1-parser 1.1.67 prints for the same
 * input; test/raml/differential.test.ts checks the same inputs against raml-1-parser itself.
 */
import { describe, expect, it } from 'vitest';
import { toTckDocument } from '../../src/raml/tck/serialize.js';
import { raml } from '../support/files.js';
import { readFiles } from '../support/front-end.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read back for assertions
type Json = Record<string, any>;

function tck(text: string): Json {
  const result = readFiles({ 'api.raml': raml(text) });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return JSON.parse(JSON.stringify(toTckDocument(result.api, result.diagnostics, result.dir).specification)) as Json;
}

const firstMethod = (spec: Json): Json => spec['resources'][0]['methods'][0];

describe('TCK shape where the TCK is silent', () => {
  it('leaves out empty headers, queryParameters, body, responses, formParameters and baseUriParameters', () => {
    const spec = tck(`
title: T
baseUri: http://example.com/{a}
/items:
  baseUriParameters:
  get:
    headers:
    queryParameters:
    body:
    responses:
      200:
        headers:
        body:
  post:
    baseUriParameters:
    body:
      multipart/form-data:
        formParameters:
`);
    const [get, post] = spec['resources'][0]['methods'];
    expect(Object.keys(get).sort()).toEqual(['method', 'protocols', 'responses']);
    expect(get.responses).toEqual({ 200: { code: '200' } });
    expect(post.body).toEqual({ 'multipart/form-data': { name: 'multipart/form-data' } });
    expect(post.baseUriParameters).toBeUndefined();
    expect(spec['resources'][0]['baseUriParameters']).toBeUndefined();
  });

  it('keeps example: null and prints enum: with no value as [null]', () => {
    const method = firstMethod(
      tck(
        'title: T\n/items:\n  post:\n    queryParameters: {q: {enum: }}\n    body:\n      application/json: {example: }\n',
      ),
    );
    expect(method.body['application/json']).toEqual({ name: 'application/json', example: null });
    expect(method.queryParameters.q.enum).toEqual([null]);
  });

  it('prints a trait or resource type used without parameters as its bare name', () => {
    const spec = tck(
      'title: T\ntraits:\n  - t: {description: x}\nresourceTypes:\n  - c: {get: }\n/items:\n  type: {c: {}}\n  get:\n    is: [t: {}, t: ]\n',
    );
    expect(spec['resources'][0].type).toBe('c');
    expect(firstMethod(spec).is).toEqual(['t', 't']);
  });

  it('applies the default media type to an empty body, in requests and responses', () => {
    const method = firstMethod(
      tck(
        'title: T\nmediaType: application/json\n/items:\n  get:\n    body:\n    responses:\n      200:\n        body: {}\n',
      ),
    );
    expect(method.body).toEqual({ 'application/json': { name: 'application/json' } });
    expect(method.responses['200'].body).toEqual({ 'application/json': { name: 'application/json' } });
    expect(firstMethod(tck('title: T\n/items:\n  get:\n    body:\n')).body).toBeUndefined();
  });

  it('keeps a description that a parameter made empty as ""', () => {
    const spec = tck(
      'title: T\ntraits:\n  - t: {description: <<p>>}\nresourceTypes:\n  - c: {description: <<p>>}\n/items:\n  type: {c: {p: ""}}\n  get:\n    is: [t: {p: ""}]\n',
    );
    expect(spec['resources'][0].description).toBe('');
    expect(firstMethod(spec).description).toBe('');
  });

  it('derives protocols from the baseUri scheme when they are not given', () => {
    expect(firstMethod(tck('title: T\nbaseUri: https://example.com\n/items:\n  get:\n')).protocols).toEqual(['HTTPS']);
    expect(tck('title: T\nbaseUri: http://example.com\n/items:\n  get:\n')['protocols']).toEqual(['HTTP']);
    expect(tck('title: T\nbaseUri: "{host}/api"\n/items:\n  get:\n')['protocols']).toEqual(['HTTP']);
    expect(tck('title: T\n/items:\n  get:\n')['protocols']).toBeUndefined();
  });
});
