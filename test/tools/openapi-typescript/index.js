// Resolved from this folder, so openapi-typescript finds TypeScript 5 in its node_modules.
export { default as openapiTS, astToString } from 'openapi-typescript';
