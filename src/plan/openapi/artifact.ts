/** The OpenAPI 3.1 document: openapi.json, and the module that serves it. */
import { planned, type Artifact } from '../artifact.js';
import { openApiDocument, openApiJson, openApiModule } from './document.js';

export const openapi: Artifact = {
  name: 'openapi',
  files: ({ ir }) => {
    const document = openApiDocument(ir);
    return [
      planned('openapi.json', '', { kind: 'text', content: openApiJson(document) }),
      planned('src/openapi.ts', 'The OpenAPI document (openapi.json), served at {base}/openapi.json.', {
        kind: 'text',
        content: openApiModule(document),
      }),
    ];
  },
};
