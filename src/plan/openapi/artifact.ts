/** The OpenAPI 3.1 document, openapi.json: the service reads it at start-up and serves it. */
import { planned, type Artifact } from '../artifact.js';
import { openApiDocument, openApiJson } from './document.js';

export const openapi: Artifact = {
  name: 'openapi',
  files: ({ ir }) => [planned('openapi.json', '', { kind: 'text', content: openApiJson(openApiDocument(ir)) })],
};
