/**
 * The OpenAPI document of every fixture, as the service serves it with auth on and with auth off
 * (lib/http/openapi.ts's `withoutAuth`), passes the linters users already run on such documents:
 * redocly's recommended rules and spectral's spectral:oas report no error, and no component is
 * left unused (each would be a dead type in every client generated from the document).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { countByRule, type Finding, redoclyLint, servedDocuments, spectralLint } from '../support/openapi-tools.js';

const documents = servedDocuments();

describe('redocly lint --extends=recommended', () => {
  let findings: Map<string, Finding[]>;
  beforeAll(async () => {
    findings = await redoclyLint(documents);
  }, 120_000);

  it.each([...documents.keys()])('%s: no error, no unused component', (name) => {
    const found = findings.get(name)!;
    const errors = found.filter((f) => f.severity === 'error');
    const unused = found.filter((f) => f.rule === 'no-unused-components');
    expect(countByRule([...errors, ...unused]), JSON.stringify(found.slice(0, 5), null, 1)).toEqual({});
  });
});

describe('spectral spectral:oas', () => {
  it.each([...documents.keys()])('%s: no error', async (name) => {
    const found = await spectralLint(documents.get(name));
    const errors = found.filter((f) => f.severity === 'error');
    expect(countByRule(errors), JSON.stringify(errors.slice(0, 5), null, 1)).toEqual({});
  });
});
